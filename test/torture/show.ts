/**
 * A torture suite's figures (documents, crashes, lost, duplicated, bad files, reports): attached to
 * the test as an annotation and printed, so `npm run torture` shows them in its output.
 */
export async function show(
  annotate: (message: string) => Promise<unknown>,
  line: string,
): Promise<void> {
  process.stdout.write(`${line}\n`);
  await annotate(line);
}
