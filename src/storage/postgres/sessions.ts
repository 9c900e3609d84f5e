// Dashboard sessions on PostgreSQL: shared by every node through the database.

import { sessionFromRow, type SessionRow } from '../rows.js';
import type { DashboardSession } from '../store.js';
import type { PgConnection } from './connection.js';

export class PostgresSessions {
  constructor(private readonly db: PgConnection) {}

  async createSession(x: DashboardSession): Promise<void> {
    await this.db.run((q) =>
      q.query(
        'INSERT INTO dashboard_sessions (id_hash, account_id, csrf_token, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [x.idHash, x.accountId, x.csrfToken, x.createdAt, x.lastSeenAt, x.expiresAt],
      ),
    );
  }

  async getSession(idHash: string, now: Date): Promise<DashboardSession | null> {
    const { rows } = await this.db.run((q) =>
      q.query<SessionRow>('SELECT * FROM dashboard_sessions WHERE id_hash = $1 AND expires_at > $2', [idHash, now]),
    );
    return rows[0] ? sessionFromRow(rows[0]) : null;
  }

  async touchSession(idHash: string, lastSeenAt: Date, expiresAt: Date): Promise<void> {
    await this.db.run((q) =>
      q.query('UPDATE dashboard_sessions SET last_seen_at = $1, expires_at = $2 WHERE id_hash = $3', [lastSeenAt, expiresAt, idHash]),
    );
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.run((q) => q.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [idHash]));
  }

  async deleteAccountSessions(accountId: string): Promise<number> {
    const res = await this.db.run((q) => q.query('DELETE FROM dashboard_sessions WHERE account_id = $1', [accountId]));
    return res.rowCount ?? 0;
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    const res = await this.db.run((q) => q.query('DELETE FROM dashboard_sessions WHERE expires_at <= $1', [now]));
    return res.rowCount ?? 0;
  }
}
