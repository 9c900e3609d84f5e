// GET /api/v1/usage and GET /api/v1/user/credits: the usage and credit records of docs/interface.md,
// computed from the ledger for the calling key's mode (live or test, decisions #24).

import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.js';
import { usageReport } from '../../accounts/usage-report.js';
import { errorResponses } from '../../http/schemas.js';

const UsageRecord = Type.Object(
  {
    plan: Type.String(),
    period: Type.Object({ start: Type.String({ format: 'date-time' }), end: Type.String({ format: 'date-time' }) }),
    usage: Type.Object({
      characters_used: Type.Integer(),
      characters_limit: Type.Integer(),
      characters_remaining: Type.Integer(),
      requests_today: Type.Integer({ description: 'Billable requests since 00:00 UTC.' }),
      requests_this_month: Type.Integer({ description: 'Billable requests in the current period.' }),
    }),
    rate_limits: Type.Object({ requests_per_minute: Type.Integer(), requests_per_hour: Type.Integer() }),
  },
  { $id: 'UsageRecord' },
);

const CreditRecord = Type.Object(
  {
    credits: Type.Integer({ description: "Remaining balance of the key's mode (live or test)." }),
    used_this_month: Type.Integer(),
    plan: Type.String(),
    renewal_date: Type.String({ format: 'date' }),
  },
  { $id: 'CreditRecord' },
);

export const accountRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/usage',
    {
      schema: {
        tags: ['account'],
        summary: 'Usage in the current period',
        security: [{ apiKey: [] }],
        response: { 200: UsageRecord, ...errorResponses() },
      },
    },
    async function getUsage(request) {
      const { account, mode } = request.auth;
      const { plan, period, summary, charactersRemaining } = await usageReport(services.store, services.config, account, mode);
      return {
        plan: account.plan,
        period: { start: period.start.toISOString(), end: period.end.toISOString() },
        usage: {
          characters_used: summary.charactersUsed,
          characters_limit: plan.monthlyCharacters,
          characters_remaining: charactersRemaining,
          requests_today: summary.requestsToday,
          requests_this_month: summary.requestsThisMonth,
        },
        rate_limits: { requests_per_minute: plan.requestsPerMinute, requests_per_hour: plan.requestsPerHour },
      };
    },
  );

  app.get(
    '/user/credits',
    {
      schema: {
        tags: ['account'],
        summary: 'Credit balance',
        security: [{ apiKey: [] }],
        response: { 200: CreditRecord, ...errorResponses() },
      },
    },
    async function getCredits(request) {
      const { account, mode } = request.auth;
      const [balance, report] = await Promise.all([
        services.store.getBalance(account.id, mode),
        usageReport(services.store, services.config, account, mode),
      ]);
      return { credits: balance, used_this_month: report.summary.creditsUsed, plan: account.plan, renewal_date: report.renewalDate };
    },
  );
};
