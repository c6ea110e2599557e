// Users (#/users, admins under builtin auth): the users with their roles,
// Add user (username, password, role), Edit (username, role), Reset
// password, Disable/Enable and Delete (not yourself), on /api/v2/users.
// Disable is ours (1.30.2 has none): PATCH isDisabled; a disabled user
// cannot log in and its sessions end at once.
import { useState } from "preact/hooks";
import { del, enc, get, patch, post } from "../api";
import { builtinAuth, ROLES, useAuth, useIsAdmin, type User } from "../auth";
import { ErrorBox, Loading, Modal, toast } from "../components/common";
import { NotEnabled } from "../components/Secret";
import { fmtTime } from "../format";
import { usePoll } from "../hooks";

export function RoleSelect({ value, onChange }: { value: string; onChange: (r: string) => void }) {
  return (
    <select name="role" value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
      {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
    </select>
  );
}

export function NotAllowed() {
  return <div class="error-box" id="not-allowed">You do not have permission to access this page (it is for admins).</div>;
}

export function UsersPage() {
  const isAdmin = useIsAdmin();
  if (!builtinAuth()) return <NotEnabled what="User management" />;
  if (!isAdmin) return <NotAllowed />;
  return <UsersList />;
}

function UsersList() {
  const { user: me } = useAuth();
  const poll = usePoll(() => get<{ users: User[] }>("/users"), [], 0);
  const [editing, setEditing] = useState<User | "new" | null>(null);
  const [resetting, setResetting] = useState<User | null>(null);
  const remove = async (u: User) => {
    if (!window.confirm("Delete user " + u.username + "? This cannot be undone.")) return;
    try {
      await del("/users/" + enc(u.id));
      toast("Deleted user " + u.username);
    } catch (e) {
      toast((e as Error).message, true);
    }
    poll.reload();
  };
  const setDisabled = async (u: User, disabled: boolean) => {
    try {
      await patch("/users/" + enc(u.id), { username: u.username, isDisabled: disabled });
      toast((disabled ? "Disabled user " : "Enabled user ") + u.username);
    } catch (e) {
      toast((e as Error).message, true);
    }
    poll.reload();
  };
  const users = poll.data?.users || [];
  return (
    <>
      <div class="page-head">
        <h1>Users</h1>
        <span class="muted">user accounts and their roles</span>
        <span class="spacer" />
        <button class="primary" data-act="new-user" onClick={() => setEditing("new")}>Add user</button>
      </div>
      <ErrorBox error={poll.error} />
      <div class="panel flush">
        {!poll.data ? (!poll.error && <Loading />) : (
          <table id="users-table">
            <thead><tr><th>Username</th><th>Role</th><th>Created</th><th>Updated</th><th /></tr></thead>
            <tbody>
              {users.length === 0 && <tr><td colSpan={5} class="empty">No users.</td></tr>}
              {users.map((u) => (
                <tr key={u.id} data-user={u.username}>
                  <td>{u.username}{me && u.id === me.id && <span class="badge self">you</span>}
                    {u.isDisabled && <span class="badge disabled">disabled</span>}</td>
                  <td><span class={"badge role " + u.role}>{u.role}</span></td>
                  <td>{fmtTime(u.createdAt)}</td>
                  <td>{fmtTime(u.updatedAt)}</td>
                  <td class="actions">
                    <button data-act="edit" onClick={() => setEditing(u)}>Edit</button>
                    <button data-act="reset-password" onClick={() => setResetting(u)}>Reset password</button>
                    {u.isDisabled ? (
                      <button data-act="enable" onClick={() => setDisabled(u, false)}>Enable</button>
                    ) : (
                      <button data-act="disable" disabled={!!me && u.id === me.id}
                        title={me && u.id === me.id ? "you cannot disable your own account" : undefined}
                        onClick={() => setDisabled(u, true)}>Disable</button>
                    )}
                    <button class="danger" data-act="delete" disabled={!!me && u.id === me.id}
                      title={me && u.id === me.id ? "you cannot delete your own account" : undefined} onClick={() => remove(u)}>Delete</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {editing && <UserForm user={editing === "new" ? null : editing} onClose={() => setEditing(null)} onSaved={() => { setEditing(null); poll.reload(); }} />}
      {resetting && <ResetPassword user={resetting} onClose={() => setResetting(null)} />}
    </>
  );
}

function UserForm({ user, onClose, onSaved }: { user: User | null; onClose: () => void; onSaved: () => void }) {
  const [username, setUsername] = useState(user?.username || "");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<string>(user?.role || "viewer");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!user && password.length < 8) return setError("The password needs at least 8 characters");
    setBusy(true);
    setError("");
    try {
      if (user) {
        const body: Record<string, string> = { role };
        if (username.trim() !== user.username) body.username = username.trim();
        await patch("/users/" + enc(user.id), body);
        toast("Updated user " + username.trim());
      } else {
        await post("/users", { username: username.trim(), password, role });
        toast("Created user " + username.trim());
      }
      onSaved();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title={user ? "Edit user " + user.username : "Add user"} onClose={onClose}>
      <form id="user-form" class="form" onSubmit={submit}>
        <label class="field"><span>Username</span>
          <input name="username" autoComplete="off" value={username} onInput={(e) => setUsername((e.target as HTMLInputElement).value)} />
        </label>
        {!user && (
          <label class="field"><span>Password (at least 8 characters)</span>
            <input name="password" type="password" autoComplete="new-password" value={password}
              onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
          </label>
        )}
        <label class="field"><span>Role</span><RoleSelect value={role} onChange={setRole} /></label>
        <p class="muted small">admin: everything, users and keys · manager: edit DAGs · operator: run DAGs · viewer: read only</p>
        <ErrorBox error={error} />
        <div class="form-actions">
          <button class="primary" type="submit" disabled={busy || !username.trim()}>{user ? "Save" : "Create user"}</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Modal>
  );
}

function ResetPassword({ user, onClose }: { user: User; onClose: () => void }) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (password.length < 8) return setError("The password needs at least 8 characters");
    setBusy(true);
    try {
      await post("/users/" + enc(user.id) + "/reset-password", { newPassword: password });
      toast("Password of " + user.username + " reset");
      onClose();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title={"Reset the password of " + user.username} onClose={onClose}>
      <form id="reset-password-form" class="form" onSubmit={submit}>
        <label class="field"><span>New password</span>
          <input name="password" type="password" autoComplete="new-password" value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
        </label>
        <ErrorBox error={error} />
        <div class="form-actions">
          <button class="primary" type="submit" disabled={busy || !password}>Reset password</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Modal>
  );
}
