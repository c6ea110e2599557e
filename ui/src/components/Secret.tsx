// A secret shown once (a new API key, a webhook token): the value in a
// read-only field with a Copy button, and the warning that it cannot be
// seen again (the server keeps only its hash).
import { useState } from "preact/hooks";

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false; // no clipboard (not a secure context, or refused): the field stays selectable
  }
}

export function CopyButton({ text, label = "Copy", id }: { text: string; label?: string; id?: string }) {
  const [done, setDone] = useState<"" | "ok" | "no">("");
  return (
    <button type="button" id={id} data-act="copy" onClick={async () => {
      const ok = await copyText(text);
      setDone(ok ? "ok" : "no");
      window.setTimeout(() => setDone(""), 1500);
    }}>{done === "ok" ? "Copied" : done === "no" ? "Select and copy" : label}</button>
  );
}

export function SecretOnce({ value, what, onDone }: { value: string; what: string; onDone: () => void }) {
  return (
    <div class="secret-once" id="secret-once">
      <div class="warn-box">Copy this {what} now. You will not be able to see it again.</div>
      <div class="secret-row">
        <input class="mono secret-value" readOnly value={value} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <CopyButton text={value} />
      </div>
      <div class="form-actions"><button class="primary" type="button" data-act="done" onClick={onDone}>Done</button></div>
    </div>
  );
}

// "not enabled" for the auth pages when auth.mode is not builtin.
export function NotEnabled({ what }: { what: string }) {
  return (
    <div class="panel not-enabled" id="not-enabled">
      <h2>{what} is not enabled</h2>
      <p class="muted">It needs builtin authentication: set <code>auth.mode: builtin</code> (with
        {" "}<code>auth.builtin.token.secret</code>) in the server's config and restart it.</p>
    </div>
  );
}
