/** What `insertDocuments` says of one note's references (InsertResult.byReference; note-references.ts). */
export interface ReferenceOutcome {
  index: number;
  /**
   * Held, stored `invalid`: the message of the problem. The ledger holds the referenced document as never
   * issued (EDOC_LEDGER_REFERENCE_NOT_ISSUED), or only another company issued that number.
   */
  notIssued?: string;
  /** The problem's code when it is not EDOC_LEDGER_REFERENCE_NOT_ISSUED (EDOC_LEDGER_OTHER_COMPANY). */
  notIssuedCode?: string;
  /** Held back in another file still being read: that file's name, until its read ends (reference-waits.ts). */
  waitsFor?: string;
  /** Numbers the ledger does not know at all: sent, with a warning. */
  unknown?: string[];
}
