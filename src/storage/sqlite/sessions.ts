// Dashboard sessions on SQLite.

import { sessionFromRow, type SessionRow } from '../rows.js';
import type { DashboardSession } from '../store.js';
import type { SqliteDatabase } from './database.js';

export class SqliteSessions {
  constructor(private readonly c: SqliteDatabase) {}

  async createSession(x: DashboardSession): Promise<void> {
    this.c
      .sql(
        'INSERT INTO dashboard_sessions (id_hash, account_id, csrf_token, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(x.idHash, x.accountId, x.csrfToken, x.createdAt.getTime(), x.lastSeenAt.getTime(), x.expiresAt.getTime());
  }

  async getSession(idHash: string, now: Date): Promise<DashboardSession | null> {
    const row = this.c.sql('SELECT * FROM dashboard_sessions WHERE id_hash = ? AND expires_at > ?').get(idHash, now.getTime()) as
      | SessionRow
      | undefined;
    return row ? sessionFromRow(row) : null;
  }

  async touchSession(idHash: string, lastSeenAt: Date, expiresAt: Date): Promise<void> {
    this.c
      .sql('UPDATE dashboard_sessions SET last_seen_at = ?, expires_at = ? WHERE id_hash = ?')
      .run(lastSeenAt.getTime(), expiresAt.getTime(), idHash);
  }

  async deleteSession(idHash: string): Promise<void> {
    this.c.sql('DELETE FROM dashboard_sessions WHERE id_hash = ?').run(idHash);
  }

  async deleteAccountSessions(accountId: string): Promise<number> {
    return this.c.sql('DELETE FROM dashboard_sessions WHERE account_id = ?').run(accountId).changes;
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    return this.c.sql('DELETE FROM dashboard_sessions WHERE expires_at <= ?').run(now.getTime()).changes;
  }
}
