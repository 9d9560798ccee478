/**
 * An API key travels in the `x-api-key` header. A key holding a character a header cannot carry (an
 * invisible U+200B or U+FEFF picked up by copy and paste, a control character, a space) would make
 * every request fail in the HTTP client, before anything is sent: such a key is refused at load,
 * naming where it is and which character, never the key. API keys are visible ASCII (0x21-0x7E).
 */
import { EdocError } from '../errors.js';

const NAMES: Readonly<Record<number, string>> = {
  0x20: 'a space',
  0x09: 'a tab',
  0xa0: 'a no-break space',
  0x200b: 'an invisible zero-width space',
  0x200c: 'an invisible zero-width non-joiner',
  0x200d: 'an invisible zero-width joiner',
  0x2060: 'an invisible word joiner',
  0xfeff: 'an invisible byte-order mark',
};

/** The first character of `key` that is not visible ASCII: its 1-based position and code point. */
export function unsafeKeyCharacter(
  key: string,
): { position: number; codePoint: number } | undefined {
  let position = 0;
  for (const char of key) {
    position += 1;
    const codePoint = char.codePointAt(0)!;
    if (codePoint < 0x21 || codePoint > 0x7e) return { position, codePoint };
  }
  return undefined;
}

/** Throws EDOC_CONFIG_INVALID naming `where` (file: key path) when the key cannot go in a header. */
export function checkApiKey(
  key: string,
  context: { file: string; path: string; company: string },
): void {
  const bad = unsafeKeyCharacter(key);
  if (bad === undefined) return;
  const hex = `U+${bad.codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  const name =
    NAMES[bad.codePoint] ??
    (bad.codePoint < 0x20 || bad.codePoint === 0x7f
      ? 'a control character'
      : 'a character outside ASCII');
  throw new EdocError(
    'EDOC_CONFIG_INVALID',
    `${context.file}: ${context.path}: the API key of company "${context.company}" holds ` +
      `${name} (${hex}) at character ${bad.position} of ${[...key].length}, which an HTTP header cannot carry; API keys are visible ` +
      "ASCII characters: type the key again (or copy it from the service's portal as plain text)",
    { ...context },
  );
}
