// API keys (#/api-keys, admins under builtin auth): each key's name, role,
// prefix, creation and last use; Create (name, description, role) shows the
// full key once with a Copy button; Edit (name, description, role) and
// Revoke (DELETE), on /api/v2/api-keys.
import { useState } from "preact/hooks";
import { del, enc, get, patch, post } from "../api";
import { builtinAuth, useIsAdmin } from "../auth";
import { ErrorBox, Loading, Modal, toast } from "../components/common";
import { NotEnabled, SecretOnce } from "../components/Secret";
import { fmtTime } from "../format";
import { usePoll } from "../hooks";
import { NotAllowed, RoleSelect } from "./Users";

interface ApiKey {
  id: string;
  name: string;
  description?: string;
  role: string;
  keyPrefix: string;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  lastUsedAt?: string | null;
}

export function ApiKeysPage() {
  const isAdmin = useIsAdmin();
  if (!builtinAuth()) return <NotEnabled what="API key management" />;
  if (!isAdmin) return <NotAllowed />;
  return <KeysList />;
}

function KeysList() {
  const poll = usePoll(() => get<{ apiKeys: ApiKey[] }>("/api-keys"), [], 0);
  const [editing, setEditing] = useState<ApiKey | "new" | null>(null);
  const revoke = async (k: ApiKey) => {
    if (!window.confirm("Revoke the API key " + k.name + "? Scripts using it stop working at once.")) return;
    try {
      await del("/api-keys/" + enc(k.id));
      toast("Revoked API key " + k.name);
    } catch (e) {
      toast((e as Error).message, true);
    }
    poll.reload();
  };
  const keys = poll.data?.apiKeys || [];
  return (
    <>
      <div class="page-head">
        <h1>API keys</h1>
        <span class="muted">keys for scripts: <code>Authorization: Bearer &lt;key&gt;</code></span>
        <span class="spacer" />
        <button class="primary" data-act="new-key" onClick={() => setEditing("new")}>Create API key</button>
      </div>
      <ErrorBox error={poll.error} />
      <div class="panel flush">
        {!poll.data ? (!poll.error && <Loading />) : (
          <table id="api-keys-table">
            <thead><tr><th>Name</th><th>Role</th><th>Key prefix</th><th>Created</th><th>Last used</th><th /></tr></thead>
            <tbody>
              {keys.length === 0 && <tr><td colSpan={6} class="empty">No API keys.</td></tr>}
              {keys.map((k) => (
                <tr key={k.id} data-key={k.name}>
                  <td>{k.name}{k.description && <div class="muted">{k.description}</div>}</td>
                  <td><span class={"badge role " + k.role}>{k.role}</span></td>
                  <td><code>{k.keyPrefix}…</code></td>
                  <td>{fmtTime(k.createdAt)}</td>
                  <td class="last-used">{k.lastUsedAt ? fmtTime(k.lastUsedAt) : <span class="muted">never</span>}</td>
                  <td class="actions">
                    <button data-act="edit" onClick={() => setEditing(k)}>Edit</button>
                    <button class="danger" data-act="revoke" onClick={() => revoke(k)}>Revoke</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {editing && <KeyForm apiKey={editing === "new" ? null : editing} onClose={() => { setEditing(null); poll.reload(); }} />}
    </>
  );
}

function KeyForm({ apiKey, onClose }: { apiKey: ApiKey | null; onClose: () => void }) {
  const [name, setName] = useState(apiKey?.name || "");
  const [description, setDescription] = useState(apiKey?.description || "");
  const [role, setRole] = useState(apiKey?.role || "viewer");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const body = { name: name.trim(), description, role };
      if (apiKey) {
        await patch("/api-keys/" + enc(apiKey.id), body);
        toast("Updated API key " + body.name);
        onClose();
      } else {
        const r = await post<{ key: string }>("/api-keys", body);
        setCreated(r.key);
      }
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  if (created) {
    return (
      <Modal title={"API key " + name.trim() + " created"} onClose={onClose}>
        <SecretOnce value={created} what="API key" onDone={onClose} />
      </Modal>
    );
  }
  return (
    <Modal title={apiKey ? "Edit API key " + apiKey.name : "Create API key"} onClose={onClose}>
      <form id="api-key-form" class="form" onSubmit={submit}>
        <label class="field"><span>Name</span>
          <input name="name" autoComplete="off" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <label class="field"><span>Description</span>
          <input name="description" autoComplete="off" value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
        </label>
        <label class="field"><span>Role</span><RoleSelect value={role} onChange={setRole} /></label>
        <ErrorBox error={error} />
        <div class="form-actions">
          <button class="primary" type="submit" disabled={busy || !name.trim()}>{apiKey ? "Save" : "Create"}</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Modal>
  );
}
