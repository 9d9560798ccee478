/**
 * A request body that is JSON text already: exactly what `JSON.stringify` makes of the request (the
 * ledger knows which stored texts are, see ledger/documents.ts `claimDue`). The client sends it as
 * is instead of parsing the stored text and serialising the request again for every attempt.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
