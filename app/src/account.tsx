// The account screens of seed 002: welcome, sign-up ("Créer mon compte"), its "Bienvenue !",
// log-in by email or pseudo ("Connexion"), the forgotten password and the pages the emails
// link to (reset, email verification).

import { useEffect, useRef, useState } from "preact/hooks";
import { type AgeRange, type Refusal, type Session, api, refusal } from "./api";
import type { Texts } from "./i18n";
import { Field, Heading, Link, type Navigate, Problem, sentence, useRequest } from "./ui";

interface ScreenProps {
  t: Texts;
  navigate: Navigate;
}

const AGES: readonly AgeRange[] = ["under-13", "13-17", "18-24", "25-34", "35-49", "50-plus"];

function isAge(value: string): value is AgeRange {
  return AGES.some((age) => age === value);
}

/** The characters of `pseudo` outside the API's rule (`[A-Za-z0-9_.-]`), each once, in order. */
export function refusedInPseudo(pseudo: string): string[] {
  const refused: string[] = [];
  for (const char of pseudo) if (!/^[A-Za-z0-9_.-]$/.test(char) && !refused.includes(char)) refused.push(char);
  return refused;
}

export function Welcome({ t, navigate, session }: ScreenProps & { session: Session | null }) {
  return (
    <section>
      <Heading docTitle={t.title}>{session ? t.loggedInAs(session.pseudo) : t.join}</Heading>
      <p>{t.pitch}</p>
      {session ? null : <p>{t.community}</p>}
      <div class="actions">
        <button type="button" class="primary" onClick={() => navigate("/feuilles/nouvelle")}>
          {t.newSheet}
        </button>
        {session ? (
          <button type="button" onClick={() => navigate("/parties/nouvelle")}>
            {t.playOnline}
          </button>
        ) : (
          <>
            <button type="button" onClick={() => navigate("/inscription")}>
              {t.createAccount}
            </button>
            <button type="button" onClick={() => navigate("/connexion")}>
              {t.login}
            </button>
          </>
        )}
      </div>
    </section>
  );
}

export function SignUp({ t, lang, onSession }: ScreenProps & { lang: "fr" | "en"; onSession: (s: Session) => void }) {
  const [pseudo, setPseudo] = useState("");
  const [password, setPassword] = useState("");
  const [age, setAge] = useState("");
  const [accept, setAccept] = useState(false);
  const [terms, setTerms] = useState<{ text: string; version: string } | null>(null);
  const { problem, setProblem, busy, send } = useRequest(t.networkError);

  useEffect(() => {
    void api.GET("/v1/terms").then(({ data }) => {
      if (data) setTerms({ text: data.text, version: data.version });
    });
  }, [lang]);

  // the first field a refusal names takes the focus (the form's fields in their order)
  const form = useRef<HTMLFormElement>(null);
  const [refused, setRefused] = useState(0);
  useEffect(() => {
    if (refused > 0) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [refused]);

  /** The client's own checks (rules/app.md "Accounts"), every failing field at once: the
   * pseudo's length and characters as the API's rule (api/accounts/schemas.py
   * PSEUDO_PATTERN: ASCII letters, digits, `_ . -`; 3 to 24), naming the refused ones. */
  function checks(): Record<string, string> {
    const found: Record<string, string> = {};
    const refused = refusedInPseudo(pseudo);
    if (refused.length > 0) found["pseudo"] = t.pseudoRefused(refused);
    else if (pseudo.length < 3 || pseudo.length > 24) found["pseudo"] = t.pseudoLength;
    if (password.length < 10) found["password"] = t.passwordLength;
    if (!isAge(age)) found["age_range"] = t.ageRequired;
    if (!accept) found["accept_terms"] = t.termsRequired;
    return found;
  }

  async function submit(event: Event) {
    event.preventDefault();
    const found = checks();
    if (!isAge(age) || Object.keys(found).length > 0) {
      setProblem({ detail: Object.values(found).join("; "), fields: found });
      setRefused((n) => n + 1);
      return;
    }
    await send(async () => {
      const { data, error } = await api.POST("/v1/accounts", {
        body: {
          pseudo,
          password,
          age_range: age,
          accept_terms: accept,
          locale: lang,
        },
      });
      if (data) onSession({ token: data.token, pseudo: data.pseudo });
      else {
        setProblem(refusal(error, t.networkError));
        setRefused((n) => n + 1);
      }
    });
  }

  const fields = problem?.fields ?? {};
  return (
    <section>
      <Heading>{t.createAccount}</Heading>
      <p>{t.signupPitch}</p>
      <form ref={form} onSubmit={submit} noValidate>
        <Field label={t.pseudo} error={fields["pseudo"]} hint={t.pseudoRule}>
          {(p) => (
            <input {...p} name="pseudo" autocomplete="username" value={pseudo} onInput={(e) => setPseudo(e.currentTarget.value)} />
          )}
        </Field>
        <Field label={t.password} error={fields["password"]} hint={t.passwordRule}>
          {(p) => (
            <input
              {...p}
              name="password"
              type="password"
              autocomplete="new-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label={t.ageRange} error={fields["age_range"]}>
          {(p) => (
            <select {...p} name="age_range" value={age} onChange={(e) => setAge(e.currentTarget.value)}>
              <option value="">{t.ageChoose}</option>
              {AGES.map((range) => (
                <option key={range} value={range}>
                  {t.ages[range]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div class="field check">
          <input
            id="accept-terms"
            type="checkbox"
            checked={accept}
            onChange={(e) => setAccept(e.currentTarget.checked)}
            aria-describedby={fields["accept_terms"] ? "accept-terms-error" : undefined}
            aria-invalid={fields["accept_terms"] ? true : undefined}
          />
          <label for="accept-terms">{t.acceptTerms}</label>
          {fields["accept_terms"] ? (
            <p class="field-error" id="accept-terms-error">
              {sentence(fields["accept_terms"])}
            </p>
          ) : null}
        </div>
        <details class="terms">
          <summary>{t.readTerms}</summary>
          {terms ? (
            <>
              <p class="terms-text">{terms.text}</p>
              <p class="muted">{t.termsVersion(terms.version)}</p>
            </>
          ) : (
            <p>{t.loading}</p>
          )}
        </details>
        <Problem refusal={problem} shown={["pseudo", "password", "age_range", "accept_terms"]} />
        <button type="submit" class="primary" disabled={busy}>
          {t.createAccount}
        </button>
      </form>
    </section>
  );
}

export function Created({ t, navigate }: ScreenProps) {
  return (
    <section>
      <Heading>{t.created}</Heading>
      <p>{t.createdText}</p>
      <div class="actions">
        <button type="button" class="primary" onClick={() => navigate("/feuilles/nouvelle")}>
          {t.newSheet}
        </button>
      </div>
    </section>
  );
}

export function LogIn({ t, navigate, onSession }: ScreenProps & { onSession: (s: Session) => void }) {
  const [login, setLogin] = useState("");
  const [password, setPassword] = useState("");
  const { problem, setProblem, busy, send } = useRequest(t.networkError);

  async function submit(event: Event) {
    event.preventDefault();
    await send(async () => {
      const { data, error } = await api.POST("/v1/sessions", { body: { login, password } });
      if (!data) {
        setProblem(refusal(error, t.networkError));
        return;
      }
      const me = await api.GET("/v1/me", { headers: { Authorization: `Bearer ${data.token}` } });
      onSession({ token: data.token, pseudo: me.data?.pseudo ?? login });
    });
  }

  const fields = problem?.fields ?? {};
  return (
    <section>
      <Heading>{t.login}</Heading>
      <p>{t.loginPitch}</p>
      <form onSubmit={submit} noValidate>
        <Field label={t.emailOrPseudo} error={fields["login"]}>
          {(p) => (
            <input {...p} name="login" autocomplete="username" value={login} onInput={(e) => setLogin(e.currentTarget.value)} />
          )}
        </Field>
        <Field label={t.password} error={fields["password"]}>
          {(p) => (
            <input
              {...p}
              name="password"
              type="password"
              autocomplete="current-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        <Problem refusal={problem} shown={["login", "password"]} />
        <button type="submit" class="primary" disabled={busy}>
          {t.login}
        </button>
      </form>
      <p class="link-line">
        <Link href="/mot-de-passe" navigate={navigate}>
          {t.forgot}
        </Link>
      </p>
    </section>
  );
}

export function Forgot({ t }: ScreenProps) {
  const [login, setLogin] = useState("");
  const [done, setDone] = useState(0);
  const { problem, setProblem, busy, send } = useRequest(t.networkError);
  // the answer (the app's own words, not the API's) takes the focus once sent, each time
  const sent = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (done > 0) sent.current?.focus();
  }, [done]);

  async function submit(event: Event) {
    event.preventDefault();
    await send(async () => {
      const { data, error } = await api.POST("/v1/password-resets", { body: { login } });
      if (data) setDone((n) => n + 1);
      else setProblem(refusal(error, t.networkError));
    });
  }

  return (
    <section>
      <Heading>{t.forgotTitle}</Heading>
      <form onSubmit={submit} noValidate>
        <Field label={t.emailOrPseudo} error={problem?.fields["login"]}>
          {(p) => (
            <input {...p} name="login" autocomplete="username" value={login} onInput={(e) => setLogin(e.currentTarget.value)} />
          )}
        </Field>
        <Problem refusal={problem} shown={["login"]} />
        <button type="submit" class="primary" disabled={busy}>
          {t.forgotSend}
        </button>
      </form>
      {done > 0 ? (
        <div ref={sent} role="status" class="notice" tabIndex={-1} data-testid="forgot-sent">
          <p>{t.forgotSent}</p>
          <p>{t.forgotNoEmail}</p>
        </div>
      ) : null}
    </section>
  );
}

export function Reset({ t, navigate, token }: ScreenProps & { token: string | null }) {
  const [password, setPassword] = useState("");
  const [done, setDone] = useState(false);
  const { problem, setProblem, busy, send } = useRequest(t.networkError);

  async function submit(event: Event) {
    event.preventDefault();
    if (!token) return;
    await send(async () => {
      const { response, error } = await api.POST("/v1/password-resets/confirm", { body: { token, password } });
      if (response.ok) setDone(true);
      else setProblem(refusal(error, t.networkError));
    });
  }

  return (
    <section>
      <Heading>{t.resetTitle}</Heading>
      {!token ? <p class="problem">{t.noToken}</p> : null}
      {done ? (
        <p role="status" class="notice">
          {t.resetDone}{" "}
          <Link href="/connexion" navigate={navigate}>
            {t.login}
          </Link>
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field label={t.newPassword} error={problem?.fields["password"]}>
            {(p) => (
              <input
                {...p}
                name="password"
                type="password"
                autocomplete="new-password"
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            )}
          </Field>
          <Problem refusal={problem} shown={["password"]} />
          <button type="submit" class="primary" disabled={!token || busy}>
            {t.resetSave}
          </button>
        </form>
      )}
    </section>
  );
}

export function Verify({ t, token }: ScreenProps & { token: string | null }) {
  const [problem, setProblem] = useState<Refusal | null>(null);
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (!token) return;
    void api
      .POST("/v1/email-verifications/confirm", { body: { token } })
      .then(({ response, error }) => (response.ok ? setDone(true) : setProblem(refusal(error, t.networkError))))
      .catch(() => setProblem({ detail: t.networkError, fields: {} }));
  }, [token]);
  return (
    <section>
      <Heading>{t.verifyTitle}</Heading>
      {!token ? <p class="problem">{t.noToken}</p> : null}
      {done ? <p role="status">{t.verifyDone}</p> : null}
      <Problem refusal={problem} shown={[]} />
    </section>
  );
}
