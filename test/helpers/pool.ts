// Independent subprocess runs a few at a time: a test that starts dozens of mcat processes one
// after another spends most of its time waiting on each one's start-up.

/** fn over items, at most `limit` at once; the results in the items' order. The first failure rejects. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
