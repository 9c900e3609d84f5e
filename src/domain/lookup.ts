// Lookup tables keyed by client input (a model id, a voice name, a language code, a query value).
// A plain object literal inherits Object.prototype, so `table["constructor"]` is a function and
// `table["__proto__"]` an object: a lookup that should miss would hit, and the function would travel
// on as a voice or a model (issue 30, item 9: a 500, and JavaScript source in an error message).
// Tables built in code are null-prototype objects (`table()`); tables that come from configuration
// or elsewhere are read with `own()`, which only sees the table's own entries.

/** The value of `key` when it is one of `table`'s own entries, else undefined (never an inherited member). */
export function own<V>(table: Readonly<Record<string, V>> | undefined, key: string): V | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** A lookup table without a prototype: only its own entries answer a lookup or `in`. */
export function table<V>(entries: Record<string, V>): Record<string, V> {
  return Object.assign(Object.create(null) as Record<string, V>, entries);
}
