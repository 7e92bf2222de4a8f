/**
 * The one interface the gateway uses for SQL. Two implementations: PostgreSQL through `pg`
 * (DATABASE_URL set) and PGlite, PostgreSQL compiled to WebAssembly, in DATA_DIR (embedded).
 * Both run the same SQL with $n parameters.
 */
export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction; rolls back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
