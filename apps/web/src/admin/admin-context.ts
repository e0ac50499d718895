/**
 * What every admin screen shares: the admin API client and the area's status line (a polite
 * live region that says what a write did).
 */
import { createContext, use } from 'react';
import type { AdminApi } from './admin-api';

/** See the module comment. */
export interface AdminContextValue {
  readonly admin: AdminApi;
  /** Says `message` in the area's status line (replacing what it said). */
  readonly say: (message: string) => void;
}

/** Provided by the admin area. */
export const AdminContext = createContext<AdminContextValue | null>(null);

/** The admin area's shared parts; throws outside it. */
export function useAdmin(): AdminContextValue {
  const value = use(AdminContext);
  if (!value) throw new Error('useAdmin needs <AdminArea>');
  return value;
}
