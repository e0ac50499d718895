/**
 * The admin screens' HTTP client (issue 37): the `/api/v1/admin/…` routes, through the console's
 * {@link ApiClient} (session cookie, `X-CSRF-TOKEN` on writes, the server's sentence in every
 * refusal's {@link ApiError}). Shapes are the contracts' (`@leadline/contracts`, `http/admin.ts`).
 */
import type {
  AdminAccount,
  AdminAccountUpdateBody,
  AdminApiKey,
  AdminApiKeyBody,
  AdminApiKeyCreated,
  AdminAuditEntry,
  AdminAvailableNumbers,
  AdminCallerNumber,
  AdminCallerNumberBody,
  AdminCallerNumberUpdateBody,
  AdminProfile,
  AdminProfileCreateBody,
  AdminProfileUpdateBody,
  AdminTeam,
  AdminTeamBody,
  AdminUser,
  AdminUserCreateBody,
  AdminUserUpdateBody,
  Paged,
} from '@leadline/contracts';
import type { ApiClient } from '../api/api-client';

/** Where the admin routes live. */
export const ADMIN_BASE = '/api/v1/admin';

/** A page of a list, and the free text it is filtered by. */
export interface ListQuery {
  readonly page: number;
  readonly search: string;
}

/** The input of a body as the schema takes it (before defaults apply). */
type Input<T> = Partial<T>;

/** See the module comment. */
export class AdminApi {
  readonly #api: ApiClient;

  constructor(api: ApiClient) {
    this.#api = api;
  }

  listUsers(query: ListQuery): Promise<Paged<AdminUser>> {
    return this.#list('users', query);
  }
  createUser(body: Input<AdminUserCreateBody>): Promise<AdminUser> {
    return this.#create('users', body);
  }
  updateUser(id: number, body: AdminUserUpdateBody): Promise<AdminUser> {
    return this.#update('users', id, body);
  }

  listTeams(query: ListQuery): Promise<Paged<AdminTeam>> {
    return this.#list('teams', query);
  }
  createTeam(body: AdminTeamBody): Promise<AdminTeam> {
    return this.#create('teams', body);
  }
  updateTeam(id: number, body: AdminTeamBody): Promise<AdminTeam> {
    return this.#update('teams', id, body);
  }
  deleteTeam(id: number): Promise<void> {
    return this.#delete('teams', id);
  }

  listProfiles(query: ListQuery): Promise<Paged<AdminProfile>> {
    return this.#list('profiles', query);
  }
  createProfile(body: Input<AdminProfileCreateBody>): Promise<AdminProfile> {
    return this.#create('profiles', body);
  }
  updateProfile(id: number, body: AdminProfileUpdateBody): Promise<AdminProfile> {
    return this.#update('profiles', id, body);
  }

  listCallerNumbers(query: ListQuery): Promise<Paged<AdminCallerNumber>> {
    return this.#list('caller-numbers', query);
  }
  /** The numbers the telephony account holds (`provider_checked` false: any number will do). */
  availableNumbers(): Promise<AdminAvailableNumbers> {
    return this.#api.request<AdminAvailableNumbers>(
      'GET',
      `${ADMIN_BASE}/caller-numbers/available`,
    );
  }
  createCallerNumber(body: AdminCallerNumberBody): Promise<AdminCallerNumber> {
    return this.#create('caller-numbers', body);
  }
  updateCallerNumber(id: number, body: AdminCallerNumberUpdateBody): Promise<AdminCallerNumber> {
    return this.#update('caller-numbers', id, body);
  }
  deleteCallerNumber(id: number): Promise<void> {
    return this.#delete('caller-numbers', id);
  }

  listApiKeys(query: ListQuery): Promise<Paged<AdminApiKey>> {
    return this.#list('api-keys', query);
  }
  /** The answer carries `key`, which the server never shows again. */
  createApiKey(body: AdminApiKeyBody): Promise<AdminApiKeyCreated['data']> {
    return this.#create('api-keys', body);
  }
  deleteApiKey(id: number): Promise<void> {
    return this.#delete('api-keys', id);
  }

  async getAccount(): Promise<AdminAccount> {
    const { data } = await this.#api.request<{ data: AdminAccount }>(
      'GET',
      `${ADMIN_BASE}/account`,
    );
    return data;
  }
  async updateAccount(body: AdminAccountUpdateBody): Promise<AdminAccount> {
    const { data } = await this.#api.request<{ data: AdminAccount }>(
      'PATCH',
      `${ADMIN_BASE}/account`,
      body,
    );
    return data;
  }

  listAudit(query: ListQuery): Promise<Paged<AdminAuditEntry>> {
    return this.#list('audit', query);
  }

  #list<T>(resource: string, { page, search }: ListQuery): Promise<Paged<T>> {
    const params = new URLSearchParams({ page: String(page) });
    if (search.trim() !== '') params.set('search', search.trim());
    return this.#api.request<Paged<T>>('GET', `${ADMIN_BASE}/${resource}?${params.toString()}`);
  }

  async #create<T>(resource: string, body: unknown): Promise<T> {
    const { data } = await this.#api.request<{ data: T }>(
      'POST',
      `${ADMIN_BASE}/${resource}`,
      body,
    );
    return data;
  }

  async #update<T>(resource: string, id: number, body: unknown): Promise<T> {
    const { data } = await this.#api.request<{ data: T }>(
      'PATCH',
      `${ADMIN_BASE}/${resource}/${id}`,
      body,
    );
    return data;
  }

  async #delete(resource: string, id: number): Promise<void> {
    await this.#api.request('DELETE', `${ADMIN_BASE}/${resource}/${id}`);
  }
}
