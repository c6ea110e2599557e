// The login form of builtin auth (auth.mode: builtin), shown when the API
// answers 401: POST /auth/login gives a session token that every later
// request sends as `Authorization: Bearer`.
import { useState } from "preact/hooks";
import { post, setToken } from "../api";

export function LoginPage({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const r = await post<{ token?: string }>("/auth/login", { username, password });
      if (!r.token) throw new Error("the server answered without a token");
      setToken(r.token);
      onLoggedIn();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="login panel">
      <h1>Sign in</h1>
      <form id="login-form" onSubmit={submit}>
        <label class="field"><span>Username</span>
          <input name="username" autoComplete="username" value={username} onInput={(e) => setUsername((e.target as HTMLInputElement).value)} />
        </label>
        <label class="field"><span>Password</span>
          <input name="password" type="password" autoComplete="current-password" value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
        </label>
        {error && <div class="error-box">{error}</div>}
        <button class="primary" type="submit" disabled={busy}>Sign in</button>
      </form>
    </div>
  );
}
