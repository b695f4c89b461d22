// Sharing and claims (issue 24): a sheet made without an account on this device, offered to be
// saved to the account once logged in (claim, binding the player the user chooses); a sheet
// shared with named accounts (`POST /v1/scoresheets/{id}/shares`), who open it by its link or
// their history and confirm it (`POST /v1/scoresheets/{id}/confirm`).

import { useEffect, useId, useState } from "preact/hooks";
import {
  type Refusal,
  type Session,
  type Sheet,
  api,
  bearer,
  deviceSheets,
  forgetSheetToken,
  refusal,
  sheetToken,
} from "./api";
import type { Texts } from "./i18n";
import { Field, type Navigate, Problem, useRequest } from "./ui";

/** Whether `pseudo` names the session's account (pseudos are case-insensitive). */
export function isMe(pseudo: string | null | undefined, session: Session | null): boolean {
  return !!session && !!pseudo && pseudo.toLowerCase() === session.pseudo.toLowerCase();
}

/** A refusal whose `code` says the player is taken: shown under `field`, in the app's words. */
function bound(problem: Refusal, field: string, words: string): Refusal {
  return problem.code === "player-bound" ? { ...problem, detail: words, fields: { ...problem.fields, [field]: words } } : problem;
}

interface ClaimProps {
  t: Texts;
  sheet: Sheet;
  token: string;
  session: Session;
  onClaimed: (sheet: Sheet) => void;
  /** Under a section's own h2 (the device's sheets), the form's title is an h3. */
  nested?: boolean;
}

/** « Enregistrer dans mon compte »: the claim of a sheet this device made, with the player
 * the user says they are (or none). */
export function ClaimForm({ t, sheet, token, session, onClaimed, nested = false }: ClaimProps) {
  const [player, setPlayer] = useState("");
  const { problem, setProblem, busy, send } = useRequest(t.networkError);
  const titleId = useId();
  const names = sheet.players.map((p) => p.name);

  async function submit(event: Event) {
    event.preventDefault();
    await send(async () => {
      const chosen = player === "" ? null : Number(player);
      const { data, error } = await api.POST("/v1/scoresheets/{sheet_id}/claim", {
        params: { path: { sheet_id: sheet.id } },
        headers: bearer(session.token),
        body: chosen === null ? { token } : { token, player: chosen },
      });
      if (!data) {
        const name = chosen === null ? "" : (names[chosen] ?? "");
        setProblem(bound(refusal(error, t.networkError), "player", t.claimBound(name)));
        return;
      }
      forgetSheetToken(sheet.id);
      onClaimed(data);
    });
  }

  return (
    <form class="panel" aria-labelledby={titleId} onSubmit={submit} noValidate>
      {nested ? (
        <h3 id={titleId}>{t.claimTitle(names.join(", "))}</h3>
      ) : (
        <h2 id={titleId}>{t.claimTitle(names.join(", "))}</h2>
      )}
      <p>{t.claimPitch}</p>
      <Field label={t.claimWho} error={problem?.fields["player"]}>
        {(p) => (
          <select {...p} value={player} onChange={(e) => setPlayer(e.currentTarget.value)}>
            <option value="">{t.claimNobody}</option>
            {names.map((name, i) => (
              <option key={i} value={String(i)} disabled={!!sheet.players[i]?.account}>
                {name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Problem refusal={problem} shown={["player"]} />
      <button type="submit" class="primary" disabled={busy}>
        {t.claimSave}
      </button>
    </form>
  );
}

/** After log-in or sign-up: each sheet this device made without an account, offered to be
 * saved to the account. A token that no longer opens its sheet is forgotten. */
export function DeviceSheets({ t, session, navigate }: { t: Texts; session: Session; navigate: Navigate }) {
  const [sheets, setSheets] = useState<{ sheet: Sheet; token: string }[]>([]);
  const [claimed, setClaimed] = useState<Sheet[]>([]);

  useEffect(() => {
    let live = true;
    void Promise.all(
      deviceSheets().map(async (id) => {
        const token = sheetToken(id);
        if (!token) return null;
        try {
          const { data, response } = await api.GET("/v1/scoresheets/{sheet_id}", {
            params: { path: { sheet_id: id } },
            headers: bearer(token),
          });
          if (data) return { sheet: data, token };
          if (response.status === 401 || response.status === 404) forgetSheetToken(id);
        } catch {
          // offline: offered again next time
        }
        return null;
      }),
    ).then((found) => {
      if (live) setSheets(found.flatMap((entry) => (entry ? [entry] : [])));
    });
    return () => {
      live = false;
    };
  }, [session.token]);

  if (sheets.length === 0 && claimed.length === 0) return null;
  return (
    <section aria-labelledby="device-sheets" class="device-sheets">
      <h2 id="device-sheets">{t.deviceSheets}</h2>
      {claimed.map((sheet) => (
        <p key={sheet.id} role="status" class="notice">
          {t.claimed}{" "}
          <button type="button" class="link" onClick={() => navigate(`/feuilles/${sheet.id}`)}>
            {t.openSheet}
          </button>
        </p>
      ))}
      {sheets.map(({ sheet, token }) => (
        <ClaimForm
          key={sheet.id}
          t={t}
          sheet={sheet}
          token={token}
          session={session}
          nested
          onClaimed={(done) => {
            setSheets((all) => all.filter((entry) => entry.sheet.id !== done.id));
            setClaimed((all) => [...all, done]);
          }}
        />
      ))}
    </section>
  );
}

/** « Partager la feuille »: the sheet's editor names an account as one of its players. */
export function SharePanel({ t, sheet, credential, onSheet }: { t: Texts; sheet: Sheet; credential: string; onSheet: (s: Sheet) => void }) {
  const free = sheet.players.flatMap((p, i) => (p.account ? [] : [i]));
  const [player, setPlayer] = useState<string>("");
  const [account, setAccount] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const { problem, setProblem, busy, send } = useRequest(t.networkError);
  const chosen = player !== "" && free.includes(Number(player)) ? Number(player) : (free[0] ?? 0);
  const name = (i: number) => sheet.players[i]?.name ?? "";

  async function submit(event: Event) {
    event.preventDefault();
    setDone(null);
    await send(async () => {
      const { data, error } = await api.POST("/v1/scoresheets/{sheet_id}/shares", {
        params: { path: { sheet_id: sheet.id } },
        headers: bearer(credential),
        body: { player: chosen, account: account.trim() },
      });
      if (!data) {
        setProblem(bound(refusal(error, t.networkError), "player", t.shareBound(name(chosen))));
        return;
      }
      setDone(t.shared(name(chosen), data.players[chosen]?.account ?? account));
      setAccount("");
      setPlayer("");
      onSheet(data);
    });
  }

  const fields = problem?.fields ?? {};
  const named = sheet.players.flatMap((p, i) => (p.account ? [{ i, name: p.name, account: p.account, confirmed: p.confirmed }] : []));
  return (
    <section aria-labelledby="share-title" class="panel">
      <h2 id="share-title">{t.shareTitle}</h2>
      <p>{t.sharePitch}</p>
      <p>
        {t.shareLink} <code class="link-text">{`${location.origin}/feuilles/${sheet.id}`}</code>
      </p>
      {named.length > 0 ? (
        <ul class="named">
          {named.map((p) => (
            <li key={p.i}>
              {p.confirmed ? t.sharedConfirmed(p.name, p.account) : t.sharedPending(p.name, p.account)}
            </li>
          ))}
        </ul>
      ) : null}
      {done ? (
        <p role="status" class="notice">
          {done}
        </p>
      ) : null}
      {free.length === 0 ? (
        <p class="muted">{t.shareNone}</p>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field label={t.sharePlayer} error={fields["player"]}>
            {(p) => (
              <select {...p} value={String(chosen)} onChange={(e) => setPlayer(e.currentTarget.value)}>
                {free.map((i) => (
                  <option key={i} value={String(i)}>
                    {name(i)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={t.shareAccount} error={fields["account"]}>
            {(p) => (
              <input
                {...p}
                name="account"
                autocomplete="off"
                autocapitalize="none"
                value={account}
                onInput={(e) => setAccount(e.currentTarget.value)}
              />
            )}
          </Field>
          <Problem refusal={problem} shown={["player", "account"]} />
          <button type="submit" disabled={busy}>
            {t.shareSend}
          </button>
        </form>
      )}
    </section>
  );
}

/** A sheet another account shared with this one: « Confirmer la feuille ». */
export function ConfirmPanel({ t, sheet, session, onSheet }: { t: Texts; sheet: Sheet; session: Session; onSheet: (s: Sheet) => void }) {
  const { problem, setProblem, busy, send } = useRequest(t.networkError);
  const mine = sheet.players.find((p) => isMe(p.account, session));
  const confirmed = !!mine?.confirmed;

  async function confirm() {
    await send(async () => {
      const { data, error } = await api.POST("/v1/scoresheets/{sheet_id}/confirm", {
        params: { path: { sheet_id: sheet.id } },
        headers: bearer(session.token),
      });
      if (data) onSheet(data);
      else setProblem(refusal(error, t.networkError));
    });
  }

  return (
    <div class="panel">
      <p>{sheet.owner ? t.confirmPitch(sheet.owner) : t.confirmPitchAnon}</p>
      {confirmed ? (
        <p role="status" class="notice">
          {t.confirmDone}
        </p>
      ) : (
        <button type="button" class="primary" disabled={busy} onClick={() => void confirm()}>
          {t.confirmSend}
        </button>
      )}
      <Problem refusal={problem} shown={[]} />
    </div>
  );
}
