// A set that keeps only the newest `limit` entries it was given: adding one more forgets the
// oldest (in the order they were added; adding one it has changes nothing). For what a
// long-running process learns for ever and stops needing with age, such as the tokens each
// refresh brings: a host up for a year must not keep, or look through, thousands of them.

export class RecentSet<T> implements Iterable<T> {
  readonly limit: number;
  // A Set iterates in insertion order: its first entry is the oldest.
  readonly #items = new Set<T>();

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a RecentSet keeps at least 1 entry, got ${limit}`);
    this.limit = limit;
  }

  has(item: T): boolean {
    return this.#items.has(item);
  }

  /** Adds `item`, forgetting the oldest when that makes one too many. False when it was there already. */
  add(item: T): boolean {
    if (this.#items.has(item)) return false;
    this.#items.add(item);
    if (this.#items.size > this.limit) this.#items.delete(this.#items.values().next().value as T);
    return true;
  }

  /** Adds `item` as the newest, also when it was there already (moved up). False when it was there. */
  renew(item: T): boolean {
    const had = this.#items.delete(item);
    this.add(item);
    return !had;
  }

  get size(): number {
    return this.#items.size;
  }

  /** Oldest first. */
  [Symbol.iterator](): Iterator<T> {
    return this.#items.values();
  }
}
