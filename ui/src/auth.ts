// Who is signed in and what the UI lets them do, decided as Dagu 1.30.2's UI
// decides it: with auth.mode builtin the signed-in user's role (admin >
// manager > operator > viewer) -- operator and up may run DAGs (start, stop,
// retry, suspend, approve), manager and up may write them (new, edit,
// rename, delete), admin manages users, API keys and webhooks. Under any
// other mode (none, basic) every action is offered and the users/API keys/
// webhooks pages say they are not enabled. The server enforces every
// permission anyway; a 403 it answers is shown as such (api.ts).
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { config } from "./config";

export type Role = "admin" | "manager" | "operator" | "viewer";
export const ROLES: Role[] = ["admin", "manager", "operator", "viewer"];
const RANK: Record<string, number> = { admin: 4, manager: 3, operator: 2, viewer: 1 };

export interface User {
  id: string;
  username: string;
  role: Role;
  createdAt?: string;
  updatedAt?: string;
  isDisabled?: boolean;  // ours: present (true) only for a disabled user
}

export function builtinAuth(): boolean {
  return config.authMode === "builtin";
}

export function hasRole(role: string | undefined, need: Role): boolean {
  return (RANK[role || ""] || 0) >= RANK[need];
}

export interface AuthState {
  user: User | null;
  signOut: () => void;
  refresh: () => void;
}

export const AuthContext = createContext<AuthState>({ user: null, signOut: () => undefined, refresh: () => undefined });

export function useAuth(): AuthState {
  return useContext(AuthContext);
}

function useAllows(need: Role): boolean {
  const { user } = useAuth();
  if (!builtinAuth()) return true;
  return !!user && hasRole(user.role, need);
}

// Start, stop, retry, suspend, dequeue, reschedule, approve.
export const useCanExecute = () => useAllows("operator");
// New DAG, save the spec, rename, delete.
export const useCanWrite = () => useAllows("manager");
// Users, API keys, webhooks (only under builtin auth).
export function useIsAdmin(): boolean {
  const { user } = useAuth();
  return builtinAuth() && !!user && user.role === "admin";
}
