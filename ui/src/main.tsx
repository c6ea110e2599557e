// The dagu web UI: a single-page app on the public REST API (/api/v2),
// routed on the URL fragment. Pages: DAGs, a DAG, Runs, a run, Queues and
// the scheduler Instances; a login form when builtin auth asks for one.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { get, getToken, onUnauthorized, setToken } from "./api";
import { Toast } from "./components/common";
import { config } from "./config";
import { DagPage } from "./pages/Dag";
import { DagsPage } from "./pages/Dags";
import { DashboardPage } from "./pages/Dashboard";
import { InstancesPage } from "./pages/Instances";
import { LoginPage } from "./pages/Login";
import { QueuesPage } from "./pages/Queues";
import { RunPage } from "./pages/Run";
import { RunsPage } from "./pages/Runs";
import { SearchPage } from "./pages/Search";
import { ApiKeysPage } from "./pages/ApiKeys";
import { UsersPage } from "./pages/Users";
import { WebhooksPage } from "./pages/Webhooks";
import { UserMenu } from "./components/UserMenu";
import { AuthContext, builtinAuth, hasRole, type User } from "./auth";
import { href, useRoute } from "./router";
import { setTimeZone, timeZone } from "./format";
import "./style.css";

const TABS: [string, string][] = [["dashboard", "Dashboard"], ["dags", "DAGs"], ["runs", "Runs"], ["queues", "Queues"], ["instances", "Instances"], ["search", "Search"]];
// Admins under builtin auth (auth.ts) also see these, as 1.30.2's "System" menu.
const ADMIN_TABS: [string, string][] = [["users", "Users"], ["api-keys", "API keys"], ["webhooks", "Webhooks"]];

function App() {
  const route = useRoute();
  const [needLogin, setNeedLogin] = useState(false);
  const [session, setSession] = useState(0); // bumps after a login: pages load again
  const [user, setUser] = useState<User | null>(null);
  const [zone, setZone] = useState(timeZone());
  const zones: [string, string][] = [["", "local time"], ["UTC", "UTC"]];
  if (config.tz && config.tz !== "UTC") zones.push([config.tz, config.tz + " (server)"]);

  useEffect(() => onUnauthorized(() => setNeedLogin(true)), []);
  // Under builtin auth the pages wait for /auth/me, so they decide on the role.
  const [meLoaded, setMeLoaded] = useState(false);
  useEffect(() => {
    if (!getToken()) {
      setUser(null);
      setMeLoaded(true);
      return;
    }
    setMeLoaded(false);
    get("/auth/me").then((r) => setUser(r.user || null), () => setUser(null)).then(() => setMeLoaded(true));
  }, [session]);

  const page = route.parts[0] || "dashboard";
  const canWrite = !builtinAuth() || (!!user && hasRole(user.role, "manager"));
  const signOut = () => { setToken(null); setUser(null); setNeedLogin(true); };
  const tabs = builtinAuth() && user?.role === "admin" ? [...TABS, ...ADMIN_TABS] : TABS;
  let body;
  if (builtinAuth() && !meLoaded && !needLogin) body = <div class="empty">Loading…</div>;
  else if (needLogin) {
    body = <LoginPage onLoggedIn={() => { setNeedLogin(false); setSession(session + 1); }} />;
  } else if (page === "dags" && route.parts.length > 1) body = <DagPage route={route} canWrite={canWrite} />;
  else if (page === "dags") body = <DagsPage route={route} canWrite={canWrite} />;
  else if (page === "runs" && route.parts.length >= 3) body = <RunPage route={route} />;
  else if (page === "runs") body = <RunsPage route={route} />;
  else if (page === "queues") body = <QueuesPage />;
  else if (page === "dashboard") body = <DashboardPage route={route} />;
  else if (page === "search") body = <SearchPage route={route} />;
  else if (page === "instances") body = <InstancesPage />;
  else if (page === "users") body = <UsersPage />;
  else if (page === "api-keys") body = <ApiKeysPage />;
  else if (page === "webhooks") body = <WebhooksPage />;
  else body = <div class="error-box">No such page: {location.hash}</div>;

  return (
    <AuthContext.Provider value={{ user, signOut, refresh: () => setSession(session + 1) }}>
      <header class="topbar" id="topbar" style={config.navbarColor ? { background: config.navbarColor } : undefined}>
        <a class="brand" href={href(["dashboard"])}>
          <img src={config.basePath + "/assets/favicon.svg"} alt="" width={22} height={22} />
          <span id="brand-title">{config.title}</span>
        </a>
        <nav class="tabs" aria-label="Main">
          {tabs.map(([t, label]) => (
            <a key={t} href={href([t])} data-tab={t} class={page === t ? "active" : ""}>{label}</a>
          ))}
        </nav>
        <div class="topbar-right">
          <select id="time-zone" class="zone" aria-label="Time zone" title="Times are shown in this zone" value={zone}
            onChange={(e) => { const z = (e.target as HTMLSelectElement).value; setTimeZone(z); setZone(z); }}>
            {zones.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
          <UserMenu />
        </div>
      </header>
      <main id="view" class="view" key={session + "|" + zone}>{body}</main>
      <Toast />
      <footer class="footer muted">dagu <span id="version">{config.version}</span></footer>
    </AuthContext.Provider>
  );
}

render(<App />, document.getElementById("app")!);
