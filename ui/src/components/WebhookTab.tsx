// A DAG's Webhook tab (#/dags/<file>?tab=webhook; admins under builtin
// auth): Create (the token shown once), the URL and an example curl, the
// token's prefix, created and last used, Enable/Disable, Regenerate (a new
// token, the old one stops) and Delete, on /api/v2/dags/<file>/webhook.
import { useEffect, useState } from "preact/hooks";
import { ApiError, del, enc, get, post } from "../api";
import { builtinAuth, useIsAdmin } from "../auth";
import { config } from "../config";
import { ErrorBox, Loading, toast } from "./common";
import { CopyButton, NotEnabled, SecretOnce } from "./Secret";
import { fmtTime } from "../format";

export interface WebhookDetails {
  id: string;
  dagName: string;
  tokenPrefix: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  lastUsedAt?: string;
}

export function webhookUrl(file: string): string {
  return location.origin + config.apiURL + "/webhooks/" + enc(file);
}

export function curlExample(file: string): string {
  return `curl -X POST "${webhookUrl(file)}" \\\n  -H "Authorization: Bearer <YOUR_TOKEN>" \\\n` +
    `  -H "Content-Type: application/json" \\\n  -d '{"dagRunId": "my-unique-id", "payload": {"key": "value"}}'`;
}

export function WebhookTab({ file }: { file: string }) {
  const isAdmin = useIsAdmin();
  if (!builtinAuth()) return <NotEnabled what="Webhook management" />;
  if (!isAdmin) return <div class="panel muted" id="not-allowed">Webhooks are managed by admins.</div>;
  return <WebhookPanel file={file} />;
}

function WebhookPanel({ file }: { file: string }) {
  // undefined: loading; null: none configured.
  const [hook, setHook] = useState<WebhookDetails | null | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  const [token, setTokenShown] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = "/dags/" + enc(file) + "/webhook";
  const load = () =>
    get<WebhookDetails>(path).then(
      (w) => { setHook(w); setError(null); },
      (e) => {
        if (e instanceof ApiError && e.status === 404) setHook(null);
        else setError(e);
      },
    );
  useEffect(() => {
    setHook(undefined);
    load();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [file]);
  const act = async (what: string, fn: () => Promise<void>) => {
    setBusy(true);
    try {
      await fn();
    } catch (e) {
      toast(what + ": " + (e as Error).message, true);
    } finally {
      setBusy(false);
    }
  };
  const create = () => act("Create", async () => {
    const r = await post<{ webhook: WebhookDetails; token: string }>(path);
    setHook(r.webhook);
    setTokenShown(r.token);
  });
  const regenerate = () => {
    if (!window.confirm("Regenerate the token of " + file + "'s webhook? The current token stops working at once.")) return;
    act("Regenerate", async () => {
      const r = await post<{ webhook: WebhookDetails; token: string }>(path + "/regenerate");
      setHook(r.webhook);
      setTokenShown(r.token);
    });
  };
  const toggle = (enabled: boolean) => act(enabled ? "Enable" : "Disable", async () => {
    setHook(await post<WebhookDetails>(path + "/toggle", { enabled }));
  });
  const remove = () => {
    if (!window.confirm("Delete the webhook of " + file + "? Callers with its token are refused from now on.")) return;
    act("Delete", async () => {
      await del(path);
      setHook(null);
      setTokenShown(null);
      toast("Deleted the webhook of " + file);
    });
  };

  if (error) return <div class="panel"><ErrorBox error={error} /><button onClick={load}>Retry</button></div>;
  if (hook === undefined) return <Loading />;
  if (token) {
    return (
      <div class="panel" id="webhook-panel">
        <h2>Webhook token</h2>
        <SecretOnce value={token} what="webhook token" onDone={() => setTokenShown(null)} />
      </div>
    );
  }
  if (hook === null) {
    return (
      <div class="panel" id="webhook-panel">
        <h2>No webhook</h2>
        <p class="muted">A webhook lets another system start this DAG with an HTTP POST and a token, without a user or an API key.</p>
        <button class="primary" data-act="create-webhook" disabled={busy} onClick={create}>Create webhook</button>
      </div>
    );
  }
  const curl = curlExample(file);
  return (
    <div class="panel" id="webhook-panel" data-enabled={String(hook.enabled)}>
      <div class="page-head">
        <h2>Webhook</h2>
        <span class={"badge " + (hook.enabled ? "succeeded" : "stopped")} id="webhook-state">{hook.enabled ? "enabled" : "disabled"}</span>
        <span class="spacer" />
        <label class="switch" title={hook.enabled ? "enabled: a POST with the token starts a run" : "disabled: a POST is refused (403)"}>
          <input type="checkbox" checked={hook.enabled} data-act="toggle-webhook" disabled={busy} onChange={() => toggle(!hook.enabled)} />
          <span />
        </label>
        <button data-act="regenerate-webhook" disabled={busy} onClick={regenerate}>Regenerate token</button>
        <button class="danger" data-act="delete-webhook" disabled={busy} onClick={remove}>Delete</button>
      </div>
      <dl class="kv">
        <dt>URL</dt><dd><code id="webhook-url">{webhookUrl(file)}</code> <CopyButton text={webhookUrl(file)} /></dd>
        <dt>Token</dt><dd><code>{hook.tokenPrefix}…</code></dd>
        <dt>Created</dt><dd>{fmtTime(hook.createdAt)}</dd>
        <dt>Last used</dt><dd id="webhook-last-used">{hook.lastUsedAt ? fmtTime(hook.lastUsedAt) : <span class="muted">never</span>}</dd>
      </dl>
      <h2>Example</h2>
      <p class="muted">The <code>payload</code> reaches the run as the param and variable <code>WEBHOOK_PAYLOAD</code> (JSON); <code>dagRunId</code> is optional and makes a retry idempotent.</p>
      <pre class="curl" id="webhook-curl">{curl}</pre>
      <CopyButton text={curl} label="Copy curl" />
    </div>
  );
}
