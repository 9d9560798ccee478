/**
 * What a terminal shows after receiving `bytes`: a tiny screen interpreter for
 * what our commands write (text, `\r`, `\n`, erase-line `ESC[K` / `ESC[2K`,
 * cursor-up `ESC[nA`; colours and other escapes are ignored). Lines are not
 * wrapped: each written line stays one screen line.
 */
export function screenText(bytes: string): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = (): string[] => {
    while (rows.length <= row) rows.push([]);
    return rows[row];
  };
  for (let i = 0; i < bytes.length; i++) {
    const ch = bytes[i];
    if (ch === '\r') {
      col = 0;
    } else if (ch === '\n') {
      row++;
      line();
    } else if (ch === '\u001b' && bytes[i + 1] === '[') {
      const match = /^\[([0-9;?]*)([A-Za-z])/.exec(bytes.slice(i + 1, i + 16));
      if (!match) continue;
      i += match[0].length;
      const [, param, command] = match;
      const current = line();
      if (command === 'K' && (param === '' || param === '0'))
        current.length = Math.min(current.length, col);
      else if (command === 'K' && param === '2') current.length = 0;
      else if (command === 'A') row = Math.max(0, row - Number(param === '' ? 1 : param));
    } else if (ch >= ' ' || ch === '\t') {
      const current = line();
      while (current.length < col) current.push(' ');
      current[col] = ch;
      col++;
    }
  }
  const text = rows.map((r) => r.join('').replace(/\s+$/, ''));
  while (text.length > 0 && text[text.length - 1] === '') text.pop();
  return text;
}
