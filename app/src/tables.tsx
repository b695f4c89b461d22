// « Tables ouvertes »: the stored games waiting for players (`GET /v1/games?status=open`,
// api-contract.md "Turn clocks, open tables, rematch"), a page at a time (« Plus de tables »
// follows `next_cursor`), filtered by game. Each table says who sits and which seats are
// free; « Rejoindre » claims one with the account's session (`POST …/seats/{seat}/claim`),
// keeps the seat's token on the device as a seat link would and opens the game (its waiting
// screen, or the play screen when that claim filled the table).

import { useEffect, useState } from "preact/hooks";
import { type Refusal, type Schemas, type Session, api, refusal } from "./api";
import type { Texts } from "./i18n";
import type { PlayRuleset } from "./online";
import { claimSeat } from "./play";
import { useCatalogue } from "./sheet";
import { Field, Heading, Link, type Navigate, Problem } from "./ui";

type OpenTable = Schemas["OpenTable"];

const RULESETS: readonly PlayRuleset[] = ["numwars", "numwars-classic", "numking", "numwin"];

export function OpenTables({ t, session, navigate }: { t: Texts; session: Session | null; navigate: Navigate }) {
  const { rulesets } = useCatalogue(t);
  const [ruleset, setRuleset] = useState<PlayRuleset | "">("");
  const [tables, setTables] = useState<OpenTable[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);
  const nameOf = (id: string) => rulesets?.find((r) => r.id === id)?.name ?? id;

  /** One page of tables: the first one of the filter (`more` false) or the next one. */
  async function load(more: boolean) {
    setBusy(true);
    setProblem(null);
    try {
      const { data, error } = await api.GET("/v1/games", {
        params: {
          query: {
            status: "open",
            ...(ruleset ? { ruleset } : {}),
            ...(more && cursor ? { cursor } : {}),
          },
        },
      });
      if (!data) {
        setProblem(refusal(error, t.networkError));
        return;
      }
      setTables((old) => (more && old ? [...old, ...data.items] : data.items));
      setCursor(data.next_cursor ?? null);
    } catch {
      setProblem({ detail: t.networkError, fields: {} });
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    void load(false);
  }, [ruleset]);

  async function join(id: string, seat: number) {
    if (!session || busy) return;
    setBusy(true);
    setProblem(null);
    const refused = await claimSeat(t, session, id, seat);
    setBusy(false);
    if (refused) setProblem(refused);
    else navigate(`/parties/${id}`);
  }

  return (
    <section>
      <Heading>{t.tablesTitle}</Heading>
      <p class="muted">{t.tablesHelp}</p>
      {session ? null : (
        <p class="notice">
          {t.tablesLogin}{" "}
          <Link href="/connexion" navigate={navigate}>
            {t.login}
          </Link>
        </p>
      )}
      <Field label={t.ruleset}>
        {(p) => (
          <select {...p} value={ruleset} onChange={(e) => setRuleset(RULESETS.find((r) => r === e.currentTarget.value) ?? "")}>
            <option value="">{t.tablesAll}</option>
            {RULESETS.map((r) => (
              <option key={r} value={r}>
                {nameOf(r)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Problem refusal={problem} shown={[]} />
      {tables === null ? (
        <p>{t.loading}</p>
      ) : tables.length === 0 ? (
        <>
          <p>{t.tablesNone}</p>
          <div class="row">
            <Link href="/parties/nouvelle" navigate={navigate}>
              {t.tablesCreate}
            </Link>
          </div>
        </>
      ) : (
        <ul class="links">
          {tables.map((table) => {
            const seatName = (seat: number) => table.players[seat]?.name || t.openSeatName(seat + 1);
            const joinLabel = (seat: number) => {
              const name = table.players[seat]?.name;
              return name ? t.joinSeat(name) : t.joinSeatNumber(seat + 1);
            };
            const seated = table.players.filter((p) => !table.open_seats.includes(p.seat)).map((p) => p.name);
            const title = t.tableTitle(nameOf(table.ruleset), new Date(table.created_at).toLocaleString(t.dateLocale, { dateStyle: "medium", timeStyle: "short" }));
            return (
              <li key={table.id}>
                <h2>{title}</h2>
                <p>{t.tablePlayers(seated.join(", "))}</p>
                <p>{t.freeSeats(table.open_seats.map(seatName).join(", "))}</p>
                {session ? (
                  <div class="row">
                    {table.open_seats.map((seat) => (
                      <button key={seat} type="button" class="primary" disabled={busy} onClick={() => void join(table.id, seat)}>
                        {joinLabel(seat)}
                      </button>
                    ))}
                  </div>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
      {cursor ? (
        <div class="row">
          <button type="button" disabled={busy} onClick={() => void load(true)}>
            {t.tablesMore}
          </button>
        </div>
      ) : null}
    </section>
  );
}
