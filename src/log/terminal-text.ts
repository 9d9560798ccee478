/**
 * Text from outside (file names, document keys, customer names, the service's messages) as the
 * command line prints it: control characters (C0 but tab and newline, DEL, C1) and the
 * bidirectional marks, embeddings, overrides and isolates are shown as `\uXXXX`. An escape sequence
 * in a file name then cannot recolour, hide (`ESC [8m`), erase or retitle what an operator reads on
 * a terminal, nor U+202E turn `gpj.exe` around. JSON text stays the same JSON (the escape is its
 * own), and the function is idempotent.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
