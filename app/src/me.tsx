// "Mon compte": the account's email and language (`PATCH /v1/me`; the app switches to the
// language chosen), its password (`POST /v1/me/password`: the other sessions end) and its
// deletion (`DELETE /v1/me`), asked again before it is sent. Each API problem under its field.

import { useEffect, useRef, useState } from "preact/hooks";
import { type Refusal, type Schemas, type Session, api, bearer, refusal } from "./api";
import type { Lang, Texts } from "./i18n";
import { Field, Heading, Link, type Navigate, Problem, useRequest } from "./ui";

type Account = Schemas["Account"];

/** A form's refusal shown where it belongs: when each of its fields is under its own field,
 * the first invalid one takes the focus (its message is its description) and the detail,
 * which names the API's field, is not repeated; otherwise the detail is shown as an alert. */
function FormProblem({ problem, shown, form }: { problem: Refusal | null; shown: readonly string[]; form: { current: HTMLFormElement | null } }) {
  const fields = Object.keys(problem?.fields ?? {});
  const placed = fields.length > 0 && fields.every((field) => shown.includes(field));
  useEffect(() => {
    if (placed) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [problem]);
  return placed ? null : <Problem refusal={problem} shown={shown} />;
}

/** What openapi-fetch answers a request: the body when `response` is ok, else the problem. */
interface Answer<T> {
  data?: T | undefined;
  error?: unknown;
  response: Response;
}

/** An account form's request, the same for each form: sent on submit (the last refusal and
 * « done » cleared, the form busy meanwhile), a refusal kept for the fields (FormProblem),
 * `onDone` given the answer's body and « done » set once it succeeded. */
function useAccountForm<T>(t: Texts, request: () => Promise<Answer<T>>, onDone: (data: T | undefined) => void) {
  const [done, setDone] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const { problem, setProblem, busy, send } = useRequest(t.networkError);
  async function submit(event: Event) {
    event.preventDefault();
    setDone(false);
    await send(async () => {
      const { data, error, response } = await request();
      if (!response.ok) {
        setProblem(refusal(error, t.networkError));
        return;
      }
      onDone(data);
      setDone(true);
    });
  }
  return { form, problem, fields: problem?.fields ?? {}, busy, done, submit };
}

interface Props {
  t: Texts;
  session: Session | null;
  navigate: Navigate;
  onLang: (lang: Lang) => void;
  onDeleted: () => void;
}

export function AccountScreen({ t, session, navigate, onLang, onDeleted }: Props) {
  const [account, setAccount] = useState<Account | null>(null);
  const [problem, setProblem] = useState<Refusal | null>(null);

  useEffect(() => {
    if (!session) return;
    api
      .GET("/v1/me", { headers: bearer(session.token) })
      .then(({ data, error }) => (data ? setAccount(data) : setProblem(refusal(error, t.networkError))))
      .catch(() => setProblem({ detail: t.networkError, fields: {} }));
  }, [session?.token]);

  if (!session) {
    return (
      <section>
        <Heading>{t.accTitle}</Heading>
        <p>{t.needLogin}</p>
        <Link href="/connexion" navigate={navigate}>
          {t.login}
        </Link>
      </section>
    );
  }
  return (
    <section>
      <Heading>{t.accTitle}</Heading>
      <p>
        {t.accPseudo} <strong>{session.pseudo}</strong>
      </p>
      {account ? <Profile key={account.id} t={t} token={session.token} account={account} onSaved={setAccount} onLang={onLang} /> : null}
      {!account && !problem ? <p>{t.loading}</p> : null}
      <Problem refusal={problem} shown={[]} />
      <Password t={t} token={session.token} />
      <Delete t={t} token={session.token} onDeleted={onDeleted} />
    </section>
  );
}

function Profile({
  t,
  token,
  account,
  onSaved,
  onLang,
}: {
  t: Texts;
  token: string;
  account: Account;
  onSaved: (account: Account) => void;
  onLang: (lang: Lang) => void;
}) {
  const [email, setEmail] = useState(account.email ?? "");
  const [locale, setLocale] = useState<Lang>(account.locale);
  const { form, problem, fields, busy, done, submit } = useAccountForm(
    t,
    () => {
      const typed = email.trim();
      const body: Schemas["UpdateMe"] = {};
      if (typed !== (account.email ?? "")) body.email = typed === "" ? null : typed;
      if (locale !== account.locale) body.locale = locale;
      return api.PATCH("/v1/me", { headers: bearer(token), body });
    },
    (saved) => {
      if (!saved) return;
      onSaved(saved);
      onLang(saved.locale);
    },
  );

  return (
    <form ref={form} onSubmit={submit} noValidate>
      <Field label={t.accEmail} error={fields["email"]}>
        {(p) => (
          <input
            {...p}
            name="email"
            type="email"
            autocomplete="email"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        )}
      </Field>
      <p class="muted">{account.email ? (account.email_verified ? t.accEmailVerified : t.accEmailUnverified) : t.accEmailHint}</p>
      <Field label={t.accLanguage} error={fields["locale"]}>
        {(p) => (
          <select
            {...p}
            name="locale"
            value={locale}
            onChange={(e) => {
              const value = e.currentTarget.value;
              if (value === "fr" || value === "en") setLocale(value);
            }}
          >
            <option value="fr" lang="fr">
              {t.accLanguages.fr}
            </option>
            <option value="en" lang="en">
              {t.accLanguages.en}
            </option>
          </select>
        )}
      </Field>
      <FormProblem problem={problem} shown={["email", "locale"]} form={form} />
      <button type="submit" class="primary" disabled={busy}>
        {t.accSave}
      </button>
      {done ? (
        <p role="status" class="notice">
          {t.accSaved}
        </p>
      ) : null}
    </form>
  );
}

function Password({ t, token }: { t: Texts; token: string }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const { form, problem, fields, busy, done, submit } = useAccountForm(
    t,
    () => api.POST("/v1/me/password", { headers: bearer(token), body: { current, new: next } }),
    () => {
      setCurrent("");
      setNext("");
    },
  );

  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">{t.accPasswordTitle}</h2>
      <form ref={form} onSubmit={submit} noValidate>
        <Field label={t.accCurrentPassword} error={fields["current"]}>
          {(p) => (
            <input
              {...p}
              name="current"
              type="password"
              autocomplete="current-password"
              value={current}
              onInput={(e) => setCurrent(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label={t.newPassword} error={fields["new"]}>
          {(p) => (
            <input
              {...p}
              name="new"
              type="password"
              autocomplete="new-password"
              value={next}
              onInput={(e) => setNext(e.currentTarget.value)}
            />
          )}
        </Field>
        <FormProblem problem={problem} shown={["current", "new"]} form={form} />
        <button type="submit" class="primary" disabled={busy}>
          {t.resetSave}
        </button>
        {done ? (
          <p role="status" class="notice">
            {t.accPasswordChanged}
          </p>
        ) : null}
      </form>
    </section>
  );
}

function Delete({ t, token, onDeleted }: { t: Texts; token: string; onDeleted: () => void }) {
  const [asking, setAsking] = useState(false);
  const warning = useRef<HTMLParagraphElement>(null);
  const { problem, setProblem, busy, send } = useRequest(t.networkError);

  useEffect(() => {
    if (asking) warning.current?.focus();
  }, [asking]);

  async function remove() {
    await send(async () => {
      const { response, error } = await api.DELETE("/v1/me", { headers: bearer(token) });
      if (response.ok) onDeleted();
      else setProblem(refusal(error, t.networkError));
    });
  }

  return (
    <section aria-labelledby="delete-title">
      <h2 id="delete-title">{t.accDeleteTitle}</h2>
      {asking ? (
        <div class="confirm">
          <p ref={warning} tabIndex={-1}>
            {t.accDeleteWarning}
          </p>
          <div class="round-actions">
            <button type="button" class="danger" onClick={() => void remove()} disabled={busy}>
              {t.accDeleteYes}
            </button>
            <button type="button" onClick={() => setAsking(false)} disabled={busy}>
              {t.fixCancel}
            </button>
          </div>
        </div>
      ) : (
        <button type="button" onClick={() => setAsking(true)}>
          {t.accDeleteTitle}
        </button>
      )}
      <Problem refusal={problem} shown={[]} />
    </section>
  );
}
