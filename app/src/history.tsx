// "Historique" (`GET /v1/me/history`: the account's sheets and games, the last changed first,
// each shown with that change's date, « modifiée le … », by pages of the API's cursor) and
// "Stats" (`GET /v1/me/stats`: per ruleset, and Num Wars per role), each picture's numbers
// written out beside it in a table.

import { useEffect, useRef, useState } from "preact/hooks";
import { type Refusal, type Schemas, type Session, api, bearer, refusal } from "./api";
import { BarChart } from "./charts";
import type { Lang, Texts } from "./i18n";
import { Heading, Link, type Navigate, Problem, ScrollCue } from "./ui";

type Item = Schemas["HistoryItem"];
type Stats = Schemas["StatsOut"];
type Role = keyof Texts["roles"];

const PAGE = 10;
const ROLES: readonly Role[] = ["poseur", "complice", "demineur", "agent", "civil"];

function locale(lang: Lang): string {
  return lang === "fr" ? "fr-FR" : "en-GB";
}

export function formatNumber(lang: Lang, n: number): string {
  return new Intl.NumberFormat(locale(lang), { maximumFractionDigits: 1 }).format(n);
}

function NeedLogin({ t, navigate, title }: { t: Texts; navigate: Navigate; title: string }) {
  return (
    <section>
      <Heading>{title}</Heading>
      <p>{t.needLogin}</p>
      <Link href="/connexion" navigate={navigate}>
        {t.login}
      </Link>
    </section>
  );
}

export function History({ t, lang, session, navigate }: { t: Texts; lang: Lang; session: Session | null; navigate: Navigate }) {
  const [items, setItems] = useState<Item[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);
  const firstNew = useRef<HTMLAnchorElement>(null);
  const [focusFrom, setFocusFrom] = useState<number | null>(null);

  async function page(after: string | null) {
    if (!session) return;
    setBusy(true);
    setProblem(null);
    try {
      const { data, error } = await api.GET("/v1/me/history", {
        params: { query: after ? { limit: PAGE, cursor: after } : { limit: PAGE } },
        headers: bearer(session.token),
      });
      if (!data) {
        setProblem(refusal(error, t.networkError));
        return;
      }
      if (after && items) {
        setItems([...items, ...data.items]);
        setFocusFrom(items.length);
      } else {
        setItems(data.items);
      }
      setCursor(data.next_cursor);
    } catch {
      setProblem({ detail: t.networkError, fields: {} });
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    void page(null);
  }, [session?.token, lang]);

  useEffect(() => {
    // "show older ones": the keyboard goes on from the first item it brought
    if (focusFrom !== null) firstNew.current?.focus();
  }, [focusFrom]);

  if (!session) return <NeedLogin t={t} navigate={navigate} title={t.histTitle} />;
  const date = new Intl.DateTimeFormat(locale(lang), { dateStyle: "long", timeStyle: "short" });
  return (
    <section>
      <Heading>{t.histTitle}</Heading>
      {items === null && !problem ? <p>{t.loading}</p> : null}
      {items && items.length === 0 ? <p>{t.histEmpty}</p> : null}
      {items && items.length > 0 ? (
        <ol class="history">
          {items.map((item, i) => {
            const href = item.kind === "scoresheet" ? `/feuilles/${item.id}` : `/parties/${item.id}`;
            // won or lost only for a sheet the account plays a player of
            const status = !item.finished
              ? t.histOngoing
              : item.seats.length === 0
                ? t.histFinished
                : item.won
                  ? t.histWon
                  : t.histLost;
            return (
              <li key={`${item.kind}-${item.id}`} data-id={item.id}>
                <a
                  href={href}
                  ref={i === focusFrom ? firstNew : undefined}
                  onClick={(event) => {
                    if (event.ctrlKey || event.metaKey || event.shiftKey) return;
                    event.preventDefault();
                    navigate(href);
                  }}
                >
                  {t.histOpen(item.ruleset_name, date.format(new Date(item.at)))}
                </a>
                <p class="muted">
                  {item.kind === "scoresheet" ? t.histSheet : t.histGame} · {item.players.join(", ")}
                </p>
                <p>
                  <span class={item.finished && item.seats.length > 0 ? (item.won ? "won" : "lost") : ""}>{status}</span>
                  {item.score !== null ? ` · ${t.histScore(item.score)}` : null}
                </p>
              </li>
            );
          })}
        </ol>
      ) : null}
      <Problem refusal={problem} shown={[]} />
      {cursor ? (
        <button type="button" onClick={() => void page(cursor)} disabled={busy}>
          {t.histMore}
        </button>
      ) : items && items.length > PAGE ? (
        <p class="muted">{t.histEnd}</p>
      ) : null}
    </section>
  );
}

export function StatsScreen({ t, lang, session, navigate }: { t: Texts; lang: Lang; session: Session | null; navigate: Navigate }) {
  const [stats, setStats] = useState<Stats | null>(null);
  // the rulesets' names in the app's language, in the catalogue's order (`GET /v1/rulesets`)
  const [catalogue, setCatalogue] = useState<{ id: string; name: string }[]>([]);
  const [problem, setProblem] = useState<Refusal | null>(null);

  useEffect(() => {
    if (!session) return;
    api
      .GET("/v1/me/stats", { headers: bearer(session.token) })
      .then(({ data, error }) => (data ? setStats(data) : setProblem(refusal(error, t.networkError))))
      .catch(() => setProblem({ detail: t.networkError, fields: {} }));
    api
      .GET("/v1/rulesets")
      .then(({ data }) => setCatalogue(data ? data.rulesets.map(({ id, name }) => ({ id, name })) : []))
      .catch(() => undefined);
  }, [session?.token, lang]);

  if (!session) return <NeedLogin t={t} navigate={navigate} title={t.statsTitle} />;
  const num = (n: number | null | undefined) => (n === null || n === undefined ? t.statsNone : formatNumber(lang, n));
  const rows = stats
    ? Object.entries(stats.rulesets)
        .map(([id, s]) => ({ id, name: catalogue.find((r) => r.id === id)?.name ?? id, s }))
        .sort((a, b) => catalogue.findIndex((r) => r.id === a.id) - catalogue.findIndex((r) => r.id === b.id))
    : [];
  // games that seated a bot count apart (`vs_bots`): shown in their own table
  const botRows = stats
    ? Object.entries(stats.vs_bots ?? {})
        .map(([id, s]) => ({ id, name: catalogue.find((r) => r.id === id)?.name ?? id, s }))
        .sort((a, b) => catalogue.findIndex((r) => r.id === a.id) - catalogue.findIndex((r) => r.id === b.id))
    : [];
  const byRole = stats?.rulesets["numwars"]?.by_role ?? null;
  const roles = byRole ? ROLES.flatMap((role) => (byRole[role] ? [{ role, r: byRole[role] }] : [])) : [];
  return (
    <section>
      <Heading>{t.statsTitle}</Heading>
      {stats === null && !problem ? <p>{t.loading}</p> : null}
      {stats && rows.length === 0 && botRows.length === 0 ? <p>{t.statsEmpty}</p> : null}
      {rows.length > 0 ? (
        <section aria-labelledby="wins-title">
          <h2 id="wins-title">{t.statsWinsTitle}</h2>
          <BarChart
            title={t.statsWinsTitle}
            desc={rows.map(({ name, s }) => t.statsWinsLine(name, s.won, s.played)).join(t.listSep)}
            bars={rows.map(({ name, s }) => ({ label: name, value: s.won, total: s.played, text: `${s.won} / ${s.played}` }))}
          />
          <div class="scroll" tabIndex={0} role="region" aria-labelledby="wins-title">
            <table class="stats">
              <caption>{t.statsTable}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.statsGame}</th>
                  <th scope="col">{t.statsPlayed}</th>
                  <th scope="col">{t.statsWon}</th>
                  <th scope="col">{t.statsWinRate}</th>
                  <th scope="col">{t.statsAverage}</th>
                  <th scope="col">{t.statsBest}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map(({ id, name, s }) => (
                  <tr key={id} data-ruleset={id}>
                    <th scope="row">{name}</th>
                    <td data-stat="played">{s.played}</td>
                    <td data-stat="won">{s.won}</td>
                    <td data-stat="win_rate">{t.statsPercent(formatNumber(lang, s.win_rate * 100))}</td>
                    <td data-stat="average_round_score">{num(s.average_round_score)}</td>
                    <td data-stat="best_round_score">{num(s.best_round_score)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ScrollCue text={t.scrollCue} />
        </section>
      ) : null}
      {roles.length > 0 ? (
        <section aria-labelledby="roles-title">
          <h2 id="roles-title">{t.statsRolesTitle}</h2>
          <BarChart
            title={t.statsRolesTitle}
            desc={roles.map(({ role, r }) => t.statsRoleLine(t.roles[role], r.average_score, num(r.average_score), r.rounds)).join(t.listSep)}
            bars={roles.map(({ role, r }) => ({ label: t.roles[role], value: r.average_score, text: num(r.average_score) }))}
          />
          <div class="scroll" tabIndex={0} role="region" aria-labelledby="roles-title">
            <table class="stats">
              <caption>{t.statsTable}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.statsRole}</th>
                  <th scope="col">{t.statsRounds}</th>
                  <th scope="col">{t.statsRoleAverage}</th>
                </tr>
              </thead>
              <tbody>
                {roles.map(({ role, r }) => (
                  <tr key={role} data-role={role}>
                    <th scope="row">{t.roles[role]}</th>
                    <td data-stat="rounds">{r.rounds}</td>
                    <td data-stat="average_score">{num(r.average_score)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ScrollCue text={t.scrollCue} />
        </section>
      ) : null}
      {botRows.length > 0 ? (
        <section aria-labelledby="bots-title">
          <h2 id="bots-title">{t.statsVsBots}</h2>
          <div class="scroll" tabIndex={0} role="region" aria-labelledby="bots-title">
            <table class="stats">
              <caption>{t.statsTable}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.statsGame}</th>
                  <th scope="col">{t.statsPlayed}</th>
                  <th scope="col">{t.statsWon}</th>
                  <th scope="col">{t.statsWinRate}</th>
                  <th scope="col">{t.statsAverage}</th>
                  <th scope="col">{t.statsBest}</th>
                </tr>
              </thead>
              <tbody>
                {botRows.map(({ id, name, s }) => (
                  <tr key={id} data-ruleset={id}>
                    <th scope="row">{name}</th>
                    <td data-stat="played">{s.played}</td>
                    <td data-stat="won">{s.won}</td>
                    <td data-stat="win_rate">{t.statsPercent(formatNumber(lang, s.win_rate * 100))}</td>
                    <td data-stat="average_round_score">{num(s.average_round_score)}</td>
                    <td data-stat="best_round_score">{num(s.best_round_score)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ScrollCue text={t.scrollCue} />
        </section>
      ) : null}
      <Problem refusal={problem} shown={[]} />
    </section>
  );
}
