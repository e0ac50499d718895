/**
 * Test support: the admin routes (`/api/v1/admin/…`, issue 37) in memory, added to the console's
 * fake server with `fakeApi.addRoutes(fakeAdmin.routes)`. Bodies are parsed with the contracts'
 * schemas like the server's (422 with the first issue's sentence), names and e-mails are unique
 * without regard to case (409), unknown ids answer 404, non-admins 403; lists page 25 a page
 * and search by name. What it answers follows the server's shapes (`http/admin.ts`).
 */
import {
  ADMIN_PAGE_SIZE,
  AdminAccountUpdateBody,
  AdminApiKeyBody,
  AdminCallerNumberBody,
  AdminCallerNumberUpdateBody,
  AdminProfileCreateBody,
  AdminProfileUpdateBody,
  AdminTeamBody,
  AdminUserCreateBody,
  AdminUserUpdateBody,
  formatPhone,
  passwordWeakness,
  type AdminAccount,
  type AdminApiKey,
  type AdminAuditEntry,
  type AdminAvailableNumbers,
  type AdminCallerNumber,
  type AdminProfile,
  type AdminTeam,
  type AdminUser,
} from '@leadline/contracts';
import type { FakeRoutes } from './fake-api';

/** The server's refusal of a non-admin. */
export const ADMIN_ONLY_TEXT = 'Only an administrator of this account can do this.';

const CREATED_AT = '2026-11-20T09:30:00.000Z';

/** A user row of the admin list. */
export function demoAdminUser(overrides: Partial<AdminUser> = {}): AdminUser {
  return {
    id: 7,
    full_name: 'Dana Whitfield',
    email: 'dana@example.com',
    role: 'agent',
    permissions: [],
    team_ids: [],
    country_code: 'US',
    phone_number: null,
    integrations: { hubspot_id: null, salesforce_domain: null, activecampaign_domain: null },
    active: true,
    sso_bound: false,
    created_at: CREATED_AT,
    ...overrides,
  };
}

/** The account as `GET /api/v1/admin/account` answers it. */
export function demoAdminAccount(overrides: Partial<AdminAccount> = {}): AdminAccount {
  return {
    id: 100,
    name: 'Brightwater Sales',
    country_code: 'US',
    time_zone: 'America/New_York',
    settings: {},
    single_sign_on: { enabled: false, domain: null, sso_only: false },
    dial_policy: {
      call_countries: ['US'],
      calls_per_minute_per_agent: 10,
      calls_per_minute_per_account: 120,
      sms_per_hour_per_agent: 60,
      sms_per_hour_per_account: 600,
    },
    session_idle_minutes: null,
    service_level_seconds: 20,
    crm_defaults: { hubspot_id: null, salesforce_domain: null, activecampaign_domain: null },
    ...overrides,
  };
}

function json(status: number, payload: unknown): Response {
  return new Response(JSON.stringify(payload), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** A zod result's first sentence, as the server's 422 says it. */
function refusal(error: { issues: ReadonlyArray<{ message: string }> }): Response {
  return json(422, { error: error.issues[0]?.message ?? 'The request is not valid.' });
}

const lower = (text: string) => text.trim().toLowerCase();

/** See the module comment. */
export class FakeAdminApi {
  users: AdminUser[] = [];
  teams: AdminTeam[] = [];
  profiles: AdminProfile[] = [];
  numbers: AdminCallerNumber[] = [];
  apiKeys: AdminApiKey[] = [];
  account: AdminAccount = demoAdminAccount();
  audit: AdminAuditEntry[] = [];
  available: AdminAvailableNumbers = { data: [], provider_checked: false };
  #nextId = 1000;
  #keys = 0;

  readonly routes: FakeRoutes = ({ method, path, query, body, user }) => {
    if (!path.startsWith('/api/v1/admin/')) return null;
    if (user.role !== 'admin') return json(403, { error: ADMIN_ONLY_TEXT });
    const [, resource, id] = /^\/api\/v1\/admin\/([a-z-]+)(?:\/([^/]+))?$/.exec(path) ?? [];
    const numeric = id !== undefined && /^\d+$/.test(id) ? Number(id) : null;
    const actor = { id: user.id, full_name: user.full_name };
    switch (
      `${method} ${resource}${id === undefined ? '' : numeric === null ? `/${id}` : '/:id'}`
    ) {
      case 'GET users':
        return this.#page(this.users, query, (u) => `${u.full_name} ${u.email}`);
      case 'POST users':
        return this.#createUser(body, actor);
      case 'PATCH users/:id':
        return this.#updateUser(numeric!, body, actor);
      case 'GET teams':
        return this.#page(this.#teamsCounted(), query, (t) => t.name);
      case 'POST teams':
      case 'PATCH teams/:id':
        return this.#saveTeam(numeric, body, actor);
      case 'DELETE teams/:id':
        return this.#delete('teams', numeric!, actor);
      case 'GET profiles':
        return this.#page(this.profiles, query, (p) => p.name);
      case 'POST profiles':
      case 'PATCH profiles/:id':
        return this.#saveProfile(numeric, body, actor);
      case 'GET caller-numbers':
        return this.#page(this.numbers, query, (n) => `${n.name} ${n.phone_number}`);
      case 'GET caller-numbers/available':
        return json(200, this.available);
      case 'POST caller-numbers':
      case 'PATCH caller-numbers/:id':
        return this.#saveNumber(numeric, body, actor);
      case 'DELETE caller-numbers/:id':
        return this.#delete('numbers', numeric!, actor);
      case 'GET api-keys':
        return this.#page(this.apiKeys, query, (k) => k.name);
      case 'POST api-keys':
        return this.#createKey(body, actor);
      case 'DELETE api-keys/:id':
        return this.#delete('apiKeys', numeric!, actor);
      case 'GET account':
        return json(200, { data: this.account });
      case 'PATCH account':
        return this.#updateAccount(body, actor);
      case 'GET audit':
        return this.#page([...this.audit].reverse(), query, (e) => `${e.action} ${e.target}`);
      default:
        return json(404, { error: `No route for ${method} ${path}.` });
    }
  };

  #page<T>(rows: readonly T[], query: URLSearchParams, text: (row: T) => string): Response {
    const search = lower(query.get('search') ?? '');
    const page = Number(query.get('page') ?? '1');
    const found = rows.filter((row) => lower(text(row)).includes(search));
    return json(200, {
      data: found.slice((page - 1) * ADMIN_PAGE_SIZE, page * ADMIN_PAGE_SIZE),
      meta: {
        current_page: page,
        last_page: Math.max(1, Math.ceil(found.length / ADMIN_PAGE_SIZE)),
        per_page: ADMIN_PAGE_SIZE,
        total: found.length,
      },
    });
  }

  #log(actor: AdminAuditEntry['actor'], action: string, target: string, changes = {}): void {
    this.audit.push({
      id: this.audit.length + 1,
      at: CREATED_AT,
      actor,
      action,
      target,
      changes,
    });
  }

  #teamsCounted(): AdminTeam[] {
    return this.teams.map((team) => ({
      ...team,
      member_count: this.users.filter((u) => u.team_ids.includes(team.id)).length,
    }));
  }

  #createUser(body: unknown, actor: AdminAuditEntry['actor']): Response {
    const parsed = AdminUserCreateBody.safeParse(body);
    if (!parsed.success) return refusal(parsed.error);
    const { password, ...fields } = parsed.data;
    if (password !== undefined) {
      const weak = passwordWeakness(password, fields.email);
      if (weak) return json(422, { error: weak });
    }
    if (this.users.some((u) => lower(u.email) === lower(fields.email))) {
      return json(409, { error: 'A user with this e-mail address already exists.' });
    }
    const user = demoAdminUser({
      ...fields,
      id: (this.#nextId += 1),
      phone_number: fields.phone_number ?? null,
      country_code: fields.country_code ?? this.account.country_code,
      integrations: {
        hubspot_id: fields.integrations?.hubspot_id ?? null,
        salesforce_domain: fields.integrations?.salesforce_domain ?? null,
        activecampaign_domain: fields.integrations?.activecampaign_domain ?? null,
      },
      active: fields.active ?? true,
    });
    this.users.push(user);
    this.#log(actor, 'user.create', `user:${user.id}`, { email: [null, user.email] });
    return json(201, { data: user });
  }

  #updateUser(id: number, body: unknown, actor: AdminAuditEntry['actor']): Response {
    const index = this.users.findIndex((u) => u.id === id);
    if (index < 0) return json(404, { error: 'User not found.' });
    const parsed = AdminUserUpdateBody.safeParse(body);
    if (!parsed.success) return refusal(parsed.error);
    const { password, integrations, ...fields } = parsed.data;
    const before = this.users[index]!;
    if (password !== undefined) {
      const weak = passwordWeakness(password, fields.email ?? before.email);
      if (weak) return json(422, { error: weak });
    }
    if (
      fields.email !== undefined &&
      this.users.some((u) => u.id !== id && lower(u.email) === lower(fields.email!))
    ) {
      return json(409, { error: 'A user with this e-mail address already exists.' });
    }
    const after: AdminUser = {
      ...before,
      ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
      ...(integrations
        ? {
            integrations: {
              hubspot_id: integrations.hubspot_id ?? null,
              salesforce_domain: integrations.salesforce_domain ?? null,
              activecampaign_domain: integrations.activecampaign_domain ?? null,
            },
          }
        : {}),
    };
    this.users[index] = after;
    this.#log(actor, 'user.update', `user:${id}`, { active: [before.active, after.active] });
    return json(200, { data: after });
  }

  #saveTeam(id: number | null, body: unknown, actor: AdminAuditEntry['actor']): Response {
    const parsed = AdminTeamBody.safeParse(body);
    if (!parsed.success) return refusal(parsed.error);
    const { name } = parsed.data;
    if (this.teams.some((t) => t.id !== id && lower(t.name) === lower(name))) {
      return json(409, { error: 'A team with this name already exists.' });
    }
    if (id === null) {
      const team: AdminTeam = {
        id: (this.#nextId += 1),
        name,
        member_count: 0,
        created_at: CREATED_AT,
      };
      this.teams.push(team);
      this.#log(actor, 'team.create', `team:${team.id}`, { name: [null, name] });
      return json(201, { data: team });
    }
    const index = this.teams.findIndex((t) => t.id === id);
    if (index < 0) return json(404, { error: 'Team not found.' });
    const before = this.teams[index]!;
    this.teams[index] = { ...before, name };
    this.#log(actor, 'team.update', `team:${id}`, { name: [before.name, name] });
    return json(200, { data: this.#teamsCounted()[index] });
  }

  #saveProfile(id: number | null, body: unknown, actor: AdminAuditEntry['actor']): Response {
    const parsed =
      id === null ? AdminProfileCreateBody.safeParse(body) : AdminProfileUpdateBody.safeParse(body);
    if (!parsed.success) return refusal(parsed.error);
    const fields = parsed.data;
    if (
      fields.name !== undefined &&
      this.profiles.some((p) => p.id !== id && lower(p.name) === lower(fields.name!))
    ) {
      return json(409, { error: 'A profile with this name already exists.' });
    }
    const index = id === null ? -1 : this.profiles.findIndex((p) => p.id === id);
    if (id !== null && index < 0) return json(404, { error: 'Profile not found.' });
    const before: AdminProfile = this.profiles[index] ?? {
      id: (this.#nextId += 1),
      name: '',
      is_deal_whispertext: false,
      auto_answer: true,
      ring_timeout_seconds: null,
      team_id: null,
      hours: null,
      tags: [],
      created_at: CREATED_AT,
    };
    const after: AdminProfile = {
      ...before,
      ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
    };
    if (index < 0) this.profiles.push(after);
    else this.profiles[index] = after;
    this.#log(actor, id === null ? 'profile.create' : 'profile.update', `profile:${after.id}`);
    return json(id === null ? 201 : 200, { data: after });
  }

  #saveNumber(id: number | null, body: unknown, actor: AdminAuditEntry['actor']): Response {
    const parsed =
      id === null
        ? AdminCallerNumberBody.safeParse(body)
        : AdminCallerNumberUpdateBody.safeParse(body);
    if (!parsed.success) return refusal(parsed.error);
    const fields = parsed.data;
    if (
      fields.phone_number !== undefined &&
      this.numbers.some((n) => n.id !== id && n.phone_number === fields.phone_number)
    ) {
      return json(409, { error: 'This number is already one of the caller numbers.' });
    }
    const index = id === null ? -1 : this.numbers.findIndex((n) => n.id === id);
    if (id !== null && index < 0) return json(404, { error: 'Caller number not found.' });
    const before: AdminCallerNumber = this.numbers[index] ?? {
      id: (this.#nextId += 1),
      name: '',
      phone_number: '',
      phone_number_formatted: '',
      profile_id: null,
      created_at: CREATED_AT,
    };
    const merged = {
      ...before,
      ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
    };
    const after = { ...merged, phone_number_formatted: formatPhone(merged.phone_number) };
    if (index < 0) this.numbers.push(after);
    else this.numbers[index] = after;
    this.#log(
      actor,
      id === null ? 'caller_number.create' : 'caller_number.update',
      `caller_number:${after.id}`,
    );
    return json(id === null ? 201 : 200, { data: after });
  }

  #createKey(body: unknown, actor: AdminAuditEntry['actor']): Response {
    const parsed = AdminApiKeyBody.safeParse(body);
    if (!parsed.success) return refusal(parsed.error);
    this.#keys += 1;
    const key = `ll_live_${String(this.#keys).padStart(4, '0')}secretpart`;
    const row: AdminApiKey = {
      id: (this.#nextId += 1),
      name: parsed.data.name,
      profile_id: parsed.data.profile_id ?? null,
      prefix: key.slice(0, 8),
      created_at: CREATED_AT,
    };
    this.apiKeys.push(row);
    this.#log(actor, 'api_key.create', `api_key:${row.id}`, { key: [null, '[redacted]'] });
    return json(201, { data: { ...row, key } });
  }

  #updateAccount(body: unknown, actor: AdminAuditEntry['actor']): Response {
    const parsed = AdminAccountUpdateBody.safeParse(body);
    if (!parsed.success) return refusal(parsed.error);
    const { single_sign_on, dial_policy, crm_defaults, ...fields } = parsed.data;
    this.account = {
      ...this.account,
      ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
      single_sign_on: { ...this.account.single_sign_on, ...single_sign_on },
      dial_policy: { ...this.account.dial_policy, ...dial_policy },
      crm_defaults: {
        hubspot_id: crm_defaults?.hubspot_id ?? this.account.crm_defaults.hubspot_id,
        salesforce_domain:
          crm_defaults?.salesforce_domain ?? this.account.crm_defaults.salesforce_domain,
        activecampaign_domain:
          crm_defaults?.activecampaign_domain ?? this.account.crm_defaults.activecampaign_domain,
      },
    };
    this.#log(actor, 'account.update', `account:${this.account.id}`);
    return json(200, { data: this.account });
  }

  #delete(list: 'teams' | 'numbers' | 'apiKeys', id: number, actor: AdminAuditEntry['actor']) {
    const rows = this[list] as Array<{ id: number }>;
    const index = rows.findIndex((row) => row.id === id);
    if (index < 0) return json(404, { error: 'Not found.' });
    rows.splice(index, 1);
    this.#log(actor, `${list}.delete`, `${list}:${id}`);
    return json(200, { data: { id } });
  }
}
