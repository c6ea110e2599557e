// The signed-in user's menu in the top bar (builtin auth only): the name and
// role, Change password (POST /auth/change-password) and Sign out.
import { useEffect, useState } from "preact/hooks";
import { post } from "../api";
import { builtinAuth, useAuth } from "../auth";
import { ErrorBox, Modal, toast } from "./common";
import "../auth.css";

export function UserMenu() {
  const { user, signOut } = useAuth();
  const [open, setOpen] = useState(false);
  const [changing, setChanging] = useState(false);
  // A click anywhere else closes the menu.
  useEffect(() => {
    if (!open) return;
    const close = () => setOpen(false);
    window.addEventListener("click", close);
    return () => window.removeEventListener("click", close);
  }, [open]);
  if (!builtinAuth() || !user) return null;
  return (
    <span class="user user-menu" onClick={(e) => e.stopPropagation()}>
      <button class="user-button" id="user-menu" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)}>
        {user.username} <span class="muted">({user.role})</span> ▾
      </button>
      {open && (
        <div class="menu" role="menu" onClick={() => setOpen(false)}>
          <div class="menu-label">
            <div>{user.username}</div>
            <div class="muted" id="user-role">{user.role}</div>
          </div>
          <button role="menuitem" data-act="change-password" onClick={() => setChanging(true)}>Change password</button>
          <button role="menuitem" data-act="sign-out" onClick={signOut}>Sign out</button>
        </div>
      )}
      {changing && <ChangePassword onClose={() => setChanging(false)} />}
    </span>
  );
}

function ChangePassword({ onClose }: { onClose: () => void }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [again, setAgain] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (next !== again) return setError("The new passwords do not match");
    if (next.length < 8) return setError("The new password needs at least 8 characters");
    setBusy(true);
    setError("");
    try {
      await post("/auth/change-password", { currentPassword: current, newPassword: next });
      toast("Password changed");
      onClose();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const field = (label: string, name: string, value: string, set: (v: string) => void, auto: string) => (
    <label class="field"><span>{label}</span>
      <input type="password" name={name} autoComplete={auto} value={value} onInput={(e) => set((e.target as HTMLInputElement).value)} />
    </label>
  );
  return (
    <Modal title="Change password" onClose={onClose}>
      <form id="change-password-form" class="form" onSubmit={submit}>
        {field("Current password", "current", current, setCurrent, "current-password")}
        {field("New password", "new", next, setNext, "new-password")}
        {field("New password again", "again", again, setAgain, "new-password")}
        <ErrorBox error={error} />
        <div class="form-actions">
          <button class="primary" type="submit" disabled={busy || !current || !next}>Change password</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Modal>
  );
}
