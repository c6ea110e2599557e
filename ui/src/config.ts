// The settings the server injects into index.html as window.DAGU_CONFIG
// (src/web/ui_routes.cc). One home for them in the UI.
export interface DaguConfig {
  basePath: string;
  apiURL: string;
  title: string;
  navbarColor: string;
  version: string;
  tz: string;
  refreshMs: number;
  authMode: string; // none, basic or builtin (auth.ts)
}

const injected = (window as unknown as { DAGU_CONFIG?: Partial<DaguConfig> }).DAGU_CONFIG || {};

export const config: DaguConfig = {
  basePath: injected.basePath ?? "",
  apiURL: injected.apiURL ?? "/api/v2",
  title: injected.title || "Dagu",
  navbarColor: injected.navbarColor ?? "",
  version: injected.version ?? "",
  tz: injected.tz ?? "",
  refreshMs: injected.refreshMs && injected.refreshMs > 0 ? injected.refreshMs : 3000,
  authMode: injected.authMode || "none",
};
