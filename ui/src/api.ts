// The only way the UI talks to the server: the public REST API under
// config.apiURL. With builtin auth the session token from POST /auth/login is
// kept in localStorage and sent as `Authorization: Bearer`; a 401 answer
// tells the app (onUnauthorized) to show the login form.
import { config } from "./config";

const TOKEN_KEY = "dagu.token";

export class ApiError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

let unauthorizedListener: (() => void) | null = null;
export function onUnauthorized(fn: () => void) {
  unauthorizedListener = fn;
}

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}
export function setToken(token: string | null) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage disabled: the token lives only in this page */
  }
}

export function enc(v: string): string {
  return encodeURIComponent(v);
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const token = getToken();
  if (token) headers.Authorization = "Bearer " + token;
  const init: RequestInit = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(config.apiURL + path, init);
  const text = await res.text();
  let data: any = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = { message: text };
  }
  if (!res.ok) {
    if (res.status === 401 && unauthorizedListener && !path.startsWith("/auth/login")) unauthorizedListener();
    const message = (data && data.message) || "HTTP " + res.status;
    // A 403 says plainly that the role may not do it (the UI hides most such actions).
    throw new ApiError(res.status === 403 ? "Not allowed (403): " + message : message, res.status);
  }
  return data as T;
}

export const get = <T = any>(path: string) => api<T>("GET", path);
export const post = <T = any>(path: string, body: unknown = {}) => api<T>("POST", path, body);
export const patch = <T = any>(path: string, body: unknown) => api<T>("PATCH", path, body);
export const del = <T = any>(path: string) => api<T>("DELETE", path);
