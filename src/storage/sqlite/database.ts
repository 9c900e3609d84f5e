// What every SQLite user of Parla does the same way (the Store, src/storage/sqlite/, and the job
// queue, src/jobs/sqlite-queue.ts): the database opened in WAL mode with its prepared statements
// cached (src/storage/sqlite/sqlite-store.ts says why these pragmas), and one migration runner,
// each user with its own version table in its own file.

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

export class SqliteDatabase {
  readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
  }

  /** Prepared statements are compiled once per SQL text and reused. */
  sql(text: string): Database.Statement {
    let stmt = this.statements.get(text);
    if (!stmt) {
      stmt = this.db.prepare(text);
      this.statements.set(text, stmt);
    }
    return stmt;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

export interface Migration {
  version: number;
  sql: string;
}

/** Applies the migrations not yet recorded in `table` (created when missing), in order, in one write transaction. */
export function applyMigrations(db: Database.Database, table: string, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`);
  db.transaction(() => {
    const done = new Set((db.prepare(`SELECT version FROM ${table}`).all() as Array<{ version: number }>).map((r) => r.version));
    const record = db.prepare(`INSERT INTO ${table} (version, applied_at) VALUES (?, ?)`);
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      db.exec(m.sql);
      record.run(m.version, Date.now());
    }
  }).immediate();
}
