/** Small path-based edits of parsed request fixtures: `edit(r, 'Lines[1].NetAmount', '1.00')`. */

type Container = Record<string, unknown> | unknown[];

function steps(path: string): (string | number)[] {
  return [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) =>
    m[2] !== undefined ? Number(m[2]) : m[1],
  );
}

function parentOf(root: unknown, path: string): { parent: Container; key: string | number } {
  const keys = steps(path);
  let node: unknown = root;
  for (const k of keys.slice(0, -1)) {
    node = (node as Record<string | number, unknown>)[k];
    if (typeof node !== 'object' || node === null) throw new Error(`no ${path} in request`);
  }
  return { parent: node as Container, key: keys[keys.length - 1] };
}

export function get(root: unknown, path: string): unknown {
  const { parent, key } = parentOf(root, path);
  return (parent as Record<string | number, unknown>)[key];
}

export function edit(root: unknown, path: string, value: unknown): void {
  const { parent, key } = parentOf(root, path);
  (parent as Record<string | number, unknown>)[key] = value;
}

export function remove(root: unknown, path: string): void {
  const { parent, key } = parentOf(root, path);
  if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
  else delete (parent as Record<string | number, unknown>)[key];
}

export function push(root: unknown, path: string, value: unknown): void {
  const list = get(root, path);
  if (!Array.isArray(list)) throw new Error(`${path} is not a list`);
  list.push(value);
}

export const paths = (problems: readonly { path: string }[]): string[] =>
  problems.map((p) => p.path);
