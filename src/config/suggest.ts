/** Case, "-" and "_" do not count: `base_url` and `BaseURL` both find `baseUrl`. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, '');
}

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
    }
    previous = current;
  }
  return previous[b.length];
}

/** The candidate closest to `name`, when one is close enough to be a likely typo. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const wanted = normalize(name);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const other = normalize(candidate);
    const prefix =
      Math.min(other.length, wanted.length) >= 3 &&
      (other.startsWith(wanted) || wanted.startsWith(other));
    const distance = other === wanted ? 0 : prefix ? 1 : editDistance(wanted, other);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(1, Math.min(3, Math.floor(wanted.length / 3)));
  return bestDistance <= allowed ? best : undefined;
}
