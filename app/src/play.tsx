// « Jouer en ligne »: a stored game (api-contract.md "Stored games"). The new game screen
// creates it and shows one link per seat, the seat's token in the URL fragment only (never
// sent to a server, never in a referrer); the game screen plays one seat from its own view:
// the hand with the legal cards highlighted (an illegal card tapped is sent anyway and the
// API's refusal shown in the app's language), the current and last tricks, the table, live
// through the event stream (`EventSource` with a stream ticket: it cannot send the token);
// then the end screen with the result and the seed commitment checked here with WebCrypto.

import type { JSX } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { type Refusal, type Schemas, type Session, api, bearer, ifMatch, refusal } from "./api";
import { CLASSIC } from "./classic";
import type { OptionValues } from "./entry";
import { NUMKING } from "./numking";
import { NUMWARS } from "./numwars-round";
import { NUMWIN } from "./numwin";
import type { Texts } from "./i18n";
import {
  type CreatedGame,
  type Game,
  type GameAction,
  type PlayRuleset,
  type Role,
  cardLabel,
  cardOf,
  checkCommitment,
  clockText,
  createdGame,
  createdGames,
  forgetRevoked,
  lookup,
  otherActions,
  rememberCreated,
  rememberToken,
  seatLink,
  secondsLeft,
  tokenFromFragment,
  watchGame,
} from "./online";
import { usePace } from "./pace";
import { OptionsFieldset, PlayerNames, SHEETS, defaults, playerNameOf, refuseTakenNames, useCatalogue } from "./sheet";
import { Field, Heading, Link, type Navigate, Problem, ScrollCue, useRequest } from "./ui";

const RULESETS: readonly PlayRuleset[] = ["numwars", "numwars-classic", "numking", "numwin"];

/** A bot's level (`GET /v1/rulesets/{id}` lists a ruleset's under `bots`), in the order the
 * form offers them: easy, medium, expert. */
type BotLevel = NonNullable<Schemas["PlayerIn"]["bot"]>;
const BOT_LEVELS: readonly BotLevel[] = ["random", "basic", "expert"];
/** Who plays a seat: a person (""), the server's bot of a level, or nobody yet: an open seat
 * any member may claim (`{"open": true}`, api-contract.md "Turn clocks, open tables, rematch"). */
type SeatKind = BotLevel | "" | "open";

/** The turn clock's choices: seconds a turn (0: no clock). */
const CLOCKS: readonly number[] = [0, 30, 60, 120, 300];
type OnTimeout = Schemas["Clock"]["on_timeout"];

/** « 30 s », « 1 min », « 5 min »: a clock's span (the same words in both languages). */
function span(seconds: number): string {
  return seconds < 60 ? `${seconds} s` : `${seconds / 60} min`;
}

/** A list of the form's seats cut to a ruleset's most players, filled with `blank` to its least. */
function fitted<T>(old: readonly T[], range: { min: number; max: number }, blank: T): T[] {
  const kept = old.slice(0, range.max);
  while (kept.length < range.min) kept.push(blank);
  return kept;
}

/** The create body of a game of `ruleset`: its options are the sheet's, asked by the same form
 * part (sheet.tsx's OptionsFieldset) and sent alike (`optionsOf`). */
function gameBody(
  ruleset: PlayRuleset,
  players: Schemas["PlayerIn"][],
  values: OptionValues,
  clock: Schemas["Clock"] | null,
): Schemas["CreateGame"] {
  switch (ruleset) {
    case "numwars":
      return { ruleset, players, clock, options: NUMWARS.optionsOf() };
    case "numwars-classic":
      return { ruleset, players, clock, options: CLASSIC.optionsOf(values) };
    case "numking":
      return { ruleset, players, clock, options: NUMKING.optionsOf(values) };
    case "numwin":
      return { ruleset, players, clock, options: NUMWIN.optionsOf(values) };
  }
}

/** The path that opens a game this device created at its creator's own seat (the first that
 * has a token: the creator plays the first seat), playable; the bare game (a spectator's view)
 * when it kept no token. */
function ownSeatPath(game: CreatedGame): string {
  const own = game.seats.find((s) => s.seat === 0) ?? game.seats[0];
  return own ? `/parties/${game.id}#jeton=${encodeURIComponent(own.token)}` : `/parties/${game.id}`;
}

/** Whether the form names the account `pseudo` for a seat (case aside, as pseudos compare). */
function namedElsewhere(pseudo: string, accounts: readonly string[]): boolean {
  const key = pseudo.toLowerCase();
  return accounts.some((account) => account.trim().toLowerCase() === key);
}

/** Joins the creator's seat 0, named by their account at creation (the API binds it only once
 * the account joins): a failure leaves the game playable by its link, only not counted. */
async function joinOwnSeat(id: string, session: Session): Promise<void> {
  try {
    await api.POST("/v1/games/{game_id}/seats/{seat}/join", {
      params: { path: { game_id: id, seat: 0 } },
      headers: bearer(session.token),
    });
  } catch {
    // the seat's link still plays it
  }
}

/** « 4 déc. 2026, 01:30 » in the app's language. */
function when(t: Texts, at: string): string {
  return new Date(at).toLocaleString(t.dateLocale, { dateStyle: "medium", timeStyle: "short" });
}

// -- the new game: the game, its options, players' names, then one link per seat ---------------

export function NewGame({ t, navigate, session }: { t: Texts; navigate: Navigate; session: Session | null }) {
  const { rulesets } = useCatalogue(t);
  const [ruleset, setRuleset] = useState<PlayRuleset>("numwars");
  // logged in, the creator (the first seat) is named by their pseudo, as the score sheet's form does
  const [names, setNames] = useState<string[]>([session?.pseudo ?? "", "", "", ""]);
  const [accounts, setAccounts] = useState<string[]>(["", "", "", ""]);
  // the creator plays the first seat; each other seat a person or a bot
  const [kinds, setKinds] = useState<SeatKind[]>(["", "", "", ""]);
  const [values, setValues] = useState<OptionValues | null>(null);
  const [turnSeconds, setTurnSeconds] = useState(0);
  const [onTimeout, setOnTimeout] = useState<OnTimeout>("auto");
  const [created, setCreated] = useState<CreatedGame | null>(null);
  const { problem, setProblem, busy, send } = useRequest(t.networkError);
  const info = rulesets?.find((r) => r.id === ruleset) ?? null;
  const specs = SHEETS[ruleset].options;
  const options = values ?? (info ? defaults(info, specs) : {});
  const least = info?.players.min ?? 3;
  const most = info?.players.max ?? 8;
  const locked = (id: PlayRuleset) => !session && (rulesets?.find((r) => r.id === id)?.community ?? false);
  const levels = BOT_LEVELS.filter((level) => info?.bots?.includes(level) ?? false);
  const kindOf = (i: number): SeatKind => {
    const kind = kinds[i] ?? "";
    if (kind === "open") return session ? "open" : "";
    return kind !== "" && levels.includes(kind) ? kind : "";
  };
  const botOf = (i: number): BotLevel | null => {
    const kind = kindOf(i);
    return kind === "" || kind === "open" ? null : kind;
  };

  function choose(id: PlayRuleset) {
    const next = rulesets?.find((r) => r.id === id);
    if (!next || locked(id)) return;
    setRuleset(id);
    setValues(defaults(next, SHEETS[id].options));
    setProblem(null);
    const human: SeatKind = "";
    setNames((old) => fitted(old, next.players, ""));
    setAccounts((old) => fitted(old, next.players, ""));
    setKinds((old) => fitted(old, next.players, human));
  }

  async function submit(event: Event) {
    event.preventDefault();
    if (locked(ruleset)) return;
    const sent = names.map((_, i) => playerNameOf(t, names, i, botOf(i) ? t.botName(i + 1) : t.playerName(i + 1)));
    if (refuseTakenNames(t, sent, setProblem)) return;
    await send(async () => {
      const players = sent.map((name, i): Schemas["PlayerIn"] => {
        // an open seat's name is its own (the seat's claimer's pseudo when left blank)
        const opened = names[i]?.trim() ?? "";
        if (kindOf(i) === "open") return { open: true, ...(opened ? { name: opened } : {}) };
        const bot = botOf(i);
        // logged in, the creator's own seat (the first) is bound to their account unless the
        // form names an account for it, or theirs for another seat: the game then counts in
        // their history and stats
        const account = accounts[i]?.trim() || (i === 0 && session && !namedElsewhere(session.pseudo, accounts) ? session.pseudo : "");
        return { name, ...(bot ? { bot } : account ? { account } : {}) };
      });
      const clock = turnSeconds > 0 ? { turn_seconds: turnSeconds, on_timeout: onTimeout } : null;
      const { data, error } = await api.POST("/v1/games", {
        body: gameBody(ruleset, players, options, clock),
        headers: session ? bearer(session.token) : {},
      });
      if (!data) {
        setProblem(refusal(error, t.networkError));
        return;
      }
      // the API binds a seat named by an account once that account joins it: the creator's at once
      if (session && players[0]?.account === session.pseudo) await joinOwnSeat(data.id, session);
      const seats = data.seats.flatMap((s) => (s.token ? [{ seat: s.seat, name: s.name, token: s.token }] : []));
      const bots = data.seats.flatMap((s) => (s.bot ? [s.name] : []));
      const open = data.open_seats ?? [];
      const game: CreatedGame = { id: data.id, ruleset, at: new Date().toISOString(), seats, bots, open };
      rememberCreated(game);
      // a table with open seats waits for its players: the creator goes straight to their own
      // seat's waiting room, which follows the table starting (their clock then runs there)
      if (data.status === "waiting" && seats.some((s) => s.seat === 0)) navigate(ownSeatPath(game));
      else setCreated(game);
    });
  }

  if (created) return <SeatLinks t={t} created={created} navigate={navigate} />;
  const fields = problem?.fields ?? {};
  const rulesetName = (id: PlayRuleset) => rulesets?.find((r) => r.id === id)?.name ?? id;
  const anyLocked = RULESETS.some(locked);
  return (
    <section>
      <Heading>{t.newGame}</Heading>
      <form onSubmit={submit} noValidate>
        <Field label={t.ruleset} error={fields["ruleset"]}>
          {(p) => (
            <select
              {...p}
              value={ruleset}
              onChange={(e) => {
                const picked = RULESETS.find((r) => r === e.currentTarget.value);
                if (picked) choose(picked);
              }}
            >
              {RULESETS.map((r) => (
                <option key={r} value={r} disabled={locked(r)}>
                  {locked(r) ? t.lockedName(rulesetName(r)) : rulesetName(r)}
                </option>
              ))}
            </select>
          )}
        </Field>
        {anyLocked ? (
          <p class="notice">
            {t.gameLocked}{" "}
            <Link href="/connexion" navigate={navigate}>
              {t.login}
            </Link>
          </p>
        ) : null}
        <PlayerNames
          t={t}
          names={names}
          least={least}
          most={most}
          fields={fields}
          onRename={(i, value) => setNames((all) => all.map((old, j) => (j === i ? value : old)))}
          onRemove={(i) => {
            setNames((all) => all.filter((_, j) => j !== i));
            setAccounts((all) => all.filter((_, j) => j !== i));
            setKinds((all) => all.filter((_, j) => j !== i));
          }}
          onAdd={() => {
            setNames((all) => [...all, ""]);
            setAccounts((all) => [...all, ""]);
            setKinds((all) => [...all, ""]);
          }}
          beside={(_, i) =>
            i === 0 || (levels.length === 0 && !session) ? null : (
              <div class="seat-kind">
                <Field label={t.seatWho(i + 1)}>
                  {(p) => (
                    <select
                      {...p}
                      value={kindOf(i)}
                      onChange={(e) => {
                        const value = e.currentTarget.value;
                        const picked: SeatKind = value === "open" ? "open" : (levels.find((level) => level === value) ?? "");
                        setKinds((all) => all.map((old, j) => (j === i ? picked : old)));
                      }}
                    >
                      <option value="">{t.human}</option>
                      {levels.map((level) => (
                        <option key={level} value={level}>
                          {t.botLevel(t.botLevels[level])}
                        </option>
                      ))}
                      {session ? <option value="open">{t.seatOpen}</option> : null}
                    </select>
                  )}
                </Field>
                {kindOf(i) === "open" ? <p class="muted">{t.openSeatHelp}</p> : null}
              </div>
            )
          }
        />
        {session ? null : <p class="muted">{t.openNeedsAccount}</p>}
        <OptionsFieldset t={t} specs={specs} values={options} fields={fields} onChange={setValues} />
        <div class="clock-options">
          <Field label={t.clock} error={fields["clock.turn_seconds"]}>
            {(p) => (
              <select {...p} value={String(turnSeconds)} onChange={(e) => setTurnSeconds(Number(e.currentTarget.value))}>
                {CLOCKS.map((seconds) => (
                  <option key={seconds} value={String(seconds)}>
                    {seconds === 0 ? t.clockNone : t.clockEach(span(seconds))}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {turnSeconds > 0 ? (
            <Field label={t.onTimeout} error={fields["clock.on_timeout"]}>
              {(p) => (
                <select
                  {...p}
                  value={onTimeout}
                  onChange={(e) => setOnTimeout(e.currentTarget.value === "abandon" ? "abandon" : "auto")}
                >
                  <option value="auto">{t.onTimeoutAuto}</option>
                  <option value="abandon">{t.onTimeoutAbandon}</option>
                </select>
              )}
            </Field>
          ) : null}
        </div>
        <details class="accounts" open={names.some((_, i) => fields[`players[${i}].account`] !== undefined)}>
          <summary>{t.accounts}</summary>
          <p class="muted">{t.accountsHelp}</p>
          {names.map((name, i) => (kindOf(i) !== "" ? null : (
            <Field key={i} label={t.accountOf(name.trim() || t.playerName(i + 1))} error={fields[`players[${i}].account`]}>
              {(p) => (
                <input
                  {...p}
                  value={accounts[i] ?? ""}
                  autocomplete="off"
                  autocapitalize="off"
                  onInput={(e) => {
                    const value = e.currentTarget.value;
                    setAccounts((all) => all.map((old, j) => (j === i ? value : old)));
                  }}
                />
              )}
            </Field>
          )))}
        </details>
        <Problem
          refusal={problem}
          shown={[
            "ruleset",
            "players",
            "clock",
            "clock.turn_seconds",
            "clock.on_timeout",
            ...specs.map((spec) => `options.${spec.name}`),
            ...names.flatMap((_, i) => [`players[${i}].name`, `players[${i}].account`]),
          ]}
        />
        <button type="submit" class="primary" disabled={busy || locked(ruleset)}>
          {t.createGame}
        </button>
      </form>
      <MyGames t={t} navigate={navigate} rulesetName={rulesetName} onShow={setCreated} />
    </section>
  );
}

/** « Mes parties »: the games this device created, each with its links shown again. */
function MyGames({
  t,
  navigate,
  rulesetName,
  onShow,
}: {
  t: Texts;
  navigate: Navigate;
  rulesetName: (id: PlayRuleset) => string;
  onShow: (game: CreatedGame) => void;
}) {
  const games = createdGames();
  if (games.length === 0) return null;
  return (
    <section aria-labelledby="my-games-title">
      <h2 id="my-games-title">{t.myGames}</h2>
      <p class="muted">{t.myGamesHelp}</p>
      <ul class="links">
        {games.map((game) => {
          const label = `${rulesetName(game.ruleset)} — ${when(t, game.at)}`;
          return (
            <li key={game.id}>
              <p>{label}</p>
              <div class="row">
                <button type="button" onClick={() => onShow(game)}>
                  {t.showLinks(label)}
                </button>
                <Link href={ownSeatPath(game)} navigate={navigate}>
                  {t.openGame(label)}
                </Link>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** The seats' links: right after the game is created, from « Mes parties », or (`again`, no
 * navigation: the game is open) folded on the game's screen of the device that created it. */
function SeatLinks({ t, created, navigate }: { t: Texts; created: CreatedGame; navigate: Navigate | null }) {
  const again = navigate === null;
  const [copied, setCopied] = useState<string | null>(null);
  const open = created.open ?? [];
  // no other person plays (every other seat a bot's): no link to send, only the game to open
  const botsOnly = !created.seats.some((seat) => seat.seat !== 0) && open.length === 0 && (created.bots?.length ?? 0) > 0;
  const bots = created.bots && created.bots.length > 0 ? <p class="muted">{t.botSeats(created.bots.join(", "))}</p> : null;
  const list = (
    <>
      <ul class="links">
        {created.seats.map((seat) => {
          const link = seatLink(created.id, seat.token);
          return (
            <li key={seat.seat}>
              <Field label={t.seatLink(seat.name)}>
                {(p) => <input {...p} readOnly value={link} onFocus={(e) => e.currentTarget.select()} />}
              </Field>
              <div class="row">
                <button
                  type="button"
                  onClick={() => {
                    void navigator.clipboard
                      ?.writeText(link)
                      .then(() => setCopied(t.copied(seat.name)))
                      .catch(() => setCopied(null));
                  }}
                >
                  {t.copy(seat.name)}
                </button>
                <a
                  href={link}
                  onClick={(event) => {
                    // on the game's own screen the link only changes the fragment: the
                    // screen's `hashchange` listener opens the seat
                    if (!navigate || event.ctrlKey || event.metaKey || event.shiftKey) return;
                    event.preventDefault();
                    navigate(new URL(link).pathname + new URL(link).hash);
                  }}
                >
                  {t.playAs(seat.name)}
                </a>
              </div>
            </li>
          );
        })}
      </ul>
      {bots}
      {open.length > 0 ? <p class="muted">{t.seatLinksOpen(open.map((seat) => t.openSeatName(seat + 1)).join(", "))}</p> : null}
      <p role="status">{copied ?? ""}</p>
    </>
  );
  if (again) {
    return (
      <details class="accounts">
        <summary>{t.linksAgain}</summary>
        {list}
      </details>
    );
  }
  // the creator's own seat (the first), played at once: the menu's « Jouer en ligne » ends here
  const own = created.seats.find((seat) => seat.seat === 0);
  return (
    <section>
      {/* against bots only there is no link: no word of links at all */}
      <Heading>{botsOnly ? t.gameReady : t.seatLinks}</Heading>
      <p>{botsOnly ? t.seatLinksBots : t.seatLinksHelp}</p>
      {own ? (
        <div class="row own-seat">
          <a
            class="primary"
            href={ownSeatPath(created)}
            aria-describedby="own-seat-help"
            onClick={(event) => {
              if (!navigate || event.ctrlKey || event.metaKey || event.shiftKey) return;
              event.preventDefault();
              navigate(ownSeatPath(created));
            }}
          >
            {t.playOnline}
          </a>
          <p id="own-seat-help" class="muted">
            {t.youPlay(own.name)}
          </p>
        </div>
      ) : null}
      {botsOnly ? bots : list}
    </section>
  );
}

// -- the game, from one seat's view (or a spectator's) ----------------------------------------

/** A clock that ran out (a `timeout` event of the stream): whose, and what it did. */
interface TimedOut {
  seat: number;
  abandon: boolean;
}

export function GameScreen({ t, id, session, navigate }: { t: Texts; id: string; session: Session | null; navigate: Navigate }) {
  // the link's token; else the session, when its account joined a seat (probed: a session
  // that holds no seat is refused, never shown a spectator view); else none (a spectator)
  const [token, setToken] = useState<string | null | undefined>(() => tokenFromFragment(id) ?? (session ? undefined : null));
  const sessionNow = useRef(session); // the session when a watch's token is refused
  sessionNow.current = session;
  const [game, setGame] = useState<Game | null>(null);
  const [live, setLive] = useState(true);
  const [problem, setProblem] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);
  const accept = useRef<(next: Game, partial?: boolean) => void>(() => undefined);
  // the last hint asked, for the version of the game it was asked at (a move makes it stale)
  const [hint, setHint] = useState<Hint | null>(null);
  const [hinting, setHinting] = useState(false);
  const [timedOut, setTimedOut] = useState<TimedOut | null>(null);
  const [left, setLeft] = useState(false);
  // the seat link's token was refused while the page used it (revoked, or the seat left)
  const [revoked, setRevoked] = useState<{ session: boolean } | null>(null);
  const [roles, setRoles] = useState<Record<number, Role[]>>({});
  const [winners, setWinners] = useState<Record<number, number[]>>({});
  // an action's refusal and the version it was refused at: stale (and cleared) once the game
  // moves to a later version, e.g. « not your turn » when the turn comes; other problems stay
  const refusedAct = useRef<{ refusal: Refusal; version: number } | null>(null);

  // a seat link pasted in the address bar (or followed) on this very screen changes only the
  // fragment: its token is taken at once, not at the next reload
  useEffect(() => {
    const onHash = () => {
      const linked = tokenFromFragment(id);
      if (linked === null) return;
      setToken((old) => {
        if (old !== linked) {
          setGame(null);
          setRevoked(null);
        }
        return linked;
      });
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [id]);

  useEffect(() => {
    if (token !== undefined || !session) return;
    api
      .GET("/v1/games/{game_id}", { params: { path: { game_id: id } }, headers: bearer(session.token) })
      .then(({ data }) => setToken(data && data.seat !== null ? session.token : null))
      .catch(() => setToken(null));
  }, [token, session]);

  useEffect(() => {
    if (token === undefined) return;
    // the stream replays the game's log from its start: a clock that ran out before this page
    // first saw the game is no news
    let seen: number | null = null;
    const watch = watchGame(id, token, {
      onGame: (next) => {
        seen ??= next.version;
        setGame(next);
        const refused = refusedAct.current;
        if (refused && next.version > refused.version) {
          refusedAct.current = null;
          setProblem((shown) => (shown === refused.refusal ? null : shown));
        }
      },
      onLive: setLive,
      onProblem: (error) => {
        const refused = refusal(error, t.networkError);
        // the game's read answered 404: the app's words, never the API's (which name the id)
        setProblem(refused.code === "not-found" ? { detail: t.gameNotFound, fields: {}, code: refused.code } : refused);
      },
      // a token that worked is refused now (the seat's token revoked, the session ended):
      // forgotten, and the page goes on with the session's seat if its account holds one
      onRevoked: () => {
        const now = sessionNow.current;
        const seatToken = token !== now?.token;
        if (seatToken && token) {
          forgetRevoked(id, token);
          setRevoked({ session: Boolean(now) });
        }
        setGame(null);
        setToken(now && seatToken ? undefined : null);
      },
      onTimeout: (seat, abandon, version) => {
        if (seen !== null && version >= seen) setTimedOut({ seat, abandon });
      },
      onRoundOver: (round, revealed, won) => {
        if (revealed) setRoles((known) => ({ ...known, [round]: revealed }));
        if (won) setWinners((known) => ({ ...known, [round]: won }));
      },
    });
    accept.current = watch.accept;
    return watch.stop;
  }, [id, token]);

  async function join(seat: number) {
    if (!session || busy) return;
    setBusy(true);
    setProblem(null);
    try {
      const { data, error } = await api.POST("/v1/games/{game_id}/seats/{seat}/join", {
        params: { path: { game_id: id, seat } },
        headers: bearer(session.token),
      });
      if (data) {
        setGame(null);
        setToken(session.token);
      } else {
        const refused = refusal(error, t.networkError);
        // the API numbers seats from 0 (as its paths do); the player reads « Place 2 »
        const name = game?.players[seat]?.name ?? t.playerName(seat + 1);
        setProblem(refused.code === "not-your-seat" ? { detail: t.notYourSeat(seat + 1, name), fields: {} } : refused);
      }
    } catch {
      setProblem({ detail: t.networkError, fields: {} });
    } finally {
      setBusy(false);
    }
  }

  async function act(action: GameAction) {
    if (!token || !game || busy) return;
    setBusy(true);
    setProblem(null);
    try {
      // A clocked game's move names the version it was chosen on (If-Match): one that
      // reaches the server after its turn ran out is refused (409 turn-timed-out), never
      // taken as the move of the turn a timeout handed the seat (api-contract.md, "Turn
      // clocks"); an unclocked game's needs no guard (only its seat's turn moves it).
      const header = game.clock ? { "If-Match": ifMatch(game.version) } : {};
      const { data, error } = await api.POST("/v1/games/{game_id}/actions", {
        params: { path: { game_id: id }, header },
        headers: bearer(token),
        body: action,
      });
      // the answer's version and view, at once; the stream's `game` message of this version
      // (its status, the others' deadlines) replaces it, or came first and is kept
      if (data) {
        const clocks = data.deadlines ? { deadlines: data.deadlines, deadline: data.deadline } : {};
        accept.current({ ...game, ...clocks, version: data.version, view: data.view }, true);
      } else {
        const refused = refusal(error, t.networkError);
        const shown = refused.code === "not-your-turn" ? { ...refused, detail: t.notYourTurn(toPlay(t, game)) } : refused;
        refusedAct.current = { refusal: shown, version: game.version };
        setProblem(shown);
      }
    } catch {
      setProblem({ detail: t.networkError, fields: {} });
    } finally {
      setBusy(false);
    }
  }

  /** « Conseil »: the expert bot's suggestion for this seat, now (POST /v1/games/{id}/hint);
   * its 409s (not the seat's turn, the game over, hints off, one already asked) said in the
   * app's words. */
  async function askHint() {
    if (!token || !game || hinting) return;
    const version = game.version;
    setHinting(true);
    setProblem(null);
    setHint(null);
    try {
      const { data, error } = await api.POST("/v1/games/{game_id}/hint", {
        params: { path: { game_id: id } },
        headers: bearer(token),
      });
      if (data) setHint({ version, action: data.action });
      else {
        const refused = refusal(error, t.networkError);
        const words = Object.entries(t.hintRefused).find(([code]) => code === refused.code)?.[1];
        setProblem(words ? { detail: words, fields: {} } : refused);
      }
    } catch {
      setProblem({ detail: t.networkError, fields: {} });
    } finally {
      setHinting(false);
    }
  }

  /** A waiting table's moves, each with the session: the seated account leaves its seat (its
   * token revoked: forgotten here too, and out of the address), the creator starts the game
   * now (its open seats played by bots) or cancels it (abandoned while waiting). */
  async function seating(move: "leave" | "start" | "cancel", level: BotLevel) {
    if (!session || !game || busy) return;
    setBusy(true);
    setProblem(null);
    try {
      const headers = bearer(session.token);
      const path = { game_id: id };
      if (move === "leave" && game.seat !== null) {
        const { data, error } = await api.POST("/v1/games/{game_id}/seats/{seat}/leave", {
          params: { path: { ...path, seat: game.seat } },
          headers,
        });
        if (!data) return setProblem(refusal(error, t.networkError));
        rememberToken(id, null);
        history.replaceState(null, "", location.pathname);
        setLeft(true);
        setGame(null);
        setToken(null);
      } else if (move === "start") {
        const { data, error } = await api.POST("/v1/games/{game_id}/start", {
          params: { path },
          headers,
          body: { fill_with_bots: level },
        });
        if (data) accept.current(data);
        else setProblem(refusal(error, t.networkError));
      } else if (move === "cancel") {
        const { data, error } = await api.POST("/v1/games/{game_id}/abandon", { params: { path }, headers });
        if (data) accept.current({ ...game, status: data.status, version: data.version });
        else setProblem(refusal(error, t.networkError));
      }
    } catch {
      setProblem({ detail: t.networkError, fields: {} });
    } finally {
      setBusy(false);
    }
  }

  if (!game) {
    return (
      <section>
        <Heading>{problem?.code === "not-found" ? t.gameNotFoundTitle : problem ? t.error : t.loading}</Heading>
        <Problem refusal={problem} shown={[]} />
      </section>
    );
  }
  const announce = timedOut ? (
    <p role="status" class="notice">
      {t.timedOut(game.players[timedOut.seat]?.name ?? t.playerName(timedOut.seat + 1), timedOut.abandon)}
    </p>
  ) : null;
  // shown first: on a phone, what follows the table is below the fold
  const lostLink = revoked ? (
    <p role="status" class="notice revoked">
      {t.seatLinkRevoked(revoked.session)}
    </p>
  ) : null;
  if (game.status === "waiting") {
    const mine = createdGame(id);
    return (
      <>
        {lostLink}
        <Waiting
          t={t}
          game={game}
          session={session}
          creator={mine !== null}
          left={left}
          busy={busy}
          problem={problem}
          navigate={navigate}
          move={seating}
          onClaimed={() => {
            setLeft(false);
            setGame(null);
            setToken(tokenFromFragment(id));
          }}
        />
        {mine && mine.seats.some((seat) => seat.seat !== 0) ? <SeatLinks t={t} created={mine} navigate={null} /> : null}
      </>
    );
  }
  if (game.status !== "active") {
    return (
      <GameOver
        key="over"
        t={t}
        game={game}
        token={token ?? null}
        navigate={navigate}
        announce={
          lostLink || announce ? (
            <>
              {lostLink}
              {announce}
            </>
          ) : null
        }
      />
    );
  }
  // the device that created the game keeps its seats' links: shown again, folded
  const created = createdGame(id);
  return (
    <>
      {lostLink}
      <Table
        key={`table-${game.seat ?? "spectator"}`}
        t={t}
        game={game}
        live={live}
        problem={problem}
        busy={busy}
        act={act}
        join={session && game.seat === null ? join : null}
        hint={hint && hint.version === game.version ? hint.action : null}
        hinting={hinting}
        askHint={token ? askHint : null}
        roles={roles}
        winners={winners}
      />
      {announce}
      {created ? <SeatLinks t={t} created={created} navigate={null} /> : null}
    </>
  );
}

// -- a table waiting for its players -------------------------------------------------------------

interface WaitingProps {
  t: Texts;
  game: Game;
  session: Session | null;
  /** this device created the game: its session may start or cancel it */
  creator: boolean;
  /** this page's seat was just left */
  left: boolean;
  busy: boolean;
  problem: Refusal | null;
  navigate: Navigate;
  move: (move: "leave" | "start" | "cancel", level: BotLevel) => Promise<void>;
  /** a seat was claimed here (its token kept on the device): the page plays it */
  onClaimed: () => void;
}

/** « En attente de joueurs »: who sits, the seats still open, the table's link to share (no
 * token in it: whoever opens it claims a seat with an account), and the moves of the seated
 * (leave) and of the creator (start with bots, cancel). No clock runs while a game waits. */
function Waiting({ t, game, session, creator, left, busy, problem, navigate, move, onClaimed }: WaitingProps) {
  const [level, setLevel] = useState<BotLevel>("basic");
  const [copied, setCopied] = useState(false);
  const [claiming, setClaiming] = useState(false);
  const [claimProblem, setClaimProblem] = useState<Refusal | null>(null);
  const link = `${location.origin}/parties/${game.id}`;
  const open = game.open_seats ?? [];
  const seatName = (seat: number) => game.players[seat]?.name || t.openSeatName(seat + 1);
  const joinLabel = (seat: number) => {
    const name = game.players[seat]?.name;
    return name ? t.joinSeat(name) : t.joinSeatNumber(seat + 1);
  };

  async function claim(seat: number) {
    if (!session || claiming) return;
    setClaiming(true);
    setClaimProblem(null);
    const refused = await claimSeat(t, session, game.id, seat);
    setClaiming(false);
    if (refused) setClaimProblem(refused);
    else onClaimed();
  }

  return (
    <section>
      <Heading>{t.waitingTitle}</Heading>
      <p class="muted">{t.waitingHelp}</p>
      {left ? <p role="status">{t.leftTable}</p> : null}
      <ul>
        {game.players.map((p) => (
          <li key={p.seat}>{p.open ? seatName(p.seat) : p.name}</li>
        ))}
      </ul>
      <p>{t.freeSeats(open.map(seatName).join(", "))}</p>
      {game.seat === null && open.length > 0 ? (
        session ? (
          <div class="row">
            {open.map((seat) => (
              <button key={seat} type="button" class="primary" disabled={claiming} onClick={() => void claim(seat)}>
                {joinLabel(seat)}
              </button>
            ))}
          </div>
        ) : (
          <p class="notice">
            {t.tablesLogin}{" "}
            <Link href="/connexion" navigate={navigate}>
              {t.login}
            </Link>
          </p>
        )
      ) : null}
      <Problem refusal={claimProblem} shown={[]} />
      <Field label={t.tableLink} hint={t.tableLinkHelp}>
        {(p) => <input {...p} readOnly value={link} onFocus={(e) => e.currentTarget.select()} />}
      </Field>
      <div class="row">
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard
              ?.writeText(link)
              .then(() => setCopied(true))
              .catch(() => setCopied(false));
          }}
        >
          {t.copyTableLink}
        </button>
      </div>
      <p role="status">{copied ? t.tableLinkCopied : ""}</p>
      {creator && session ? (
        <div class="clock-options">
          <Field label={t.fillLevel}>
            {(p) => (
              <select {...p} value={level} onChange={(e) => setLevel(BOT_LEVELS.find((l) => l === e.currentTarget.value) ?? "basic")}>
                {BOT_LEVELS.map((l) => (
                  <option key={l} value={l}>
                    {t.botLevels[l]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div class="row">
            <button type="button" class="primary" disabled={busy} onClick={() => void move("start", level)}>
              {t.startWithBots}
            </button>
            <button type="button" class="danger" disabled={busy} onClick={() => void move("cancel", level)}>
              {t.cancelTable}
            </button>
          </div>
        </div>
      ) : null}
      {!creator && session && game.seat !== null ? (
        <div class="row">
          <button type="button" disabled={busy} onClick={() => void move("leave", level)}>
            {t.leaveTable}
          </button>
        </div>
      ) : null}
      <Problem refusal={problem} shown={[]} />
    </section>
  );
}

/** Claims an open seat with the session (`POST /v1/games/{id}/seats/{seat}/claim`) and keeps
 * its token on the device as a seat link would; a refusal comes back in the app's words
 * (someone was first, the account sits there already, the game started or was cancelled),
 * else as the API says it. */
export async function claimSeat(t: Texts, session: Session, id: string, seat: number): Promise<Refusal | null> {
  try {
    const { data, error } = await api.POST("/v1/games/{game_id}/seats/{seat}/claim", {
      params: { path: { game_id: id, seat } },
      headers: bearer(session.token),
    });
    if (data) {
      rememberToken(id, data.token);
      return null;
    }
    const refused = refusal(error, t.networkError);
    const words = Object.entries(t.claimRefused).find(([code]) => code === refused.code)?.[1];
    return words ? { ...refused, detail: words } : refused;
  } catch {
    return { detail: t.networkError, fields: {} };
  }
}

// -- the turn clocks -----------------------------------------------------------------------------

/** « Temps restant : 0:42 » for each seat that owes a move (`deadlines`, by the server's
 * clock: online.ts `serverNow`), redrawn four times a second, urgent under 10 s. Each is a
 * `timer` named with its seat, which screen readers do not read out at every tick. */
function Countdowns({ t, game, nameOf }: { t: Texts; game: Game; nameOf: (seat: number) => string }) {
  const [, tick] = useState(0);
  const deadlines = game.deadlines ?? [];
  useEffect(() => {
    if (deadlines.length === 0) return;
    const timer = setInterval(() => tick((n) => n + 1), 250);
    return () => clearInterval(timer);
  }, [deadlines.length]);
  if (deadlines.length === 0) return null;
  return (
    <div class="clocks">
      {deadlines.map((d) => {
        const text = clockText(d.at, game.clock?.turn_seconds);
        const urgent = secondsLeft(d.at) < 10;
        return (
          <p key={d.seat} role="timer" aria-label={t.timeLeftOf(nameOf(d.seat), text)} class={urgent ? "clock urgent" : "clock"}>
            {d.seat === game.seat ? t.timeLeft(text) : t.timeLeftOf(nameOf(d.seat), text)}
          </p>
        );
      })}
    </div>
  );
}

/** Who is to play, by the names the table shows (« la place N », from 1, for a seat without
 * one): Num Win's current player, else the view's actors. */
function toPlay(t: Texts, game: Game): string[] {
  const view = game.view;
  const seats = view.ruleset === "numwin" && view.current_player !== null ? [view.current_player] : view.actors;
  return seats.filter((seat) => seat !== game.seat).map((seat) => game.players[seat]?.name || t.seatNamed(seat + 1));
}

/** A hint the API gave, and the game's version it was asked at. */
interface Hint {
  version: number;
  action: GameAction;
}

interface TableProps {
  t: Texts;
  game: Game;
  live: boolean;
  problem: Refusal | null;
  busy: boolean;
  act: (action: GameAction) => Promise<void>;
  join: ((seat: number) => Promise<void>) | null;
  /** the suggested action of the current hint (null: none asked, or the game moved on) */
  hint: GameAction | null;
  hinting: boolean;
  askHint: (() => Promise<void>) | null;
  /** each ended round's roles, by round number (Num Wars: revealed at its end) */
  roles: Record<number, Role[]>;
  /** each ended round's winners (seats), by round number, when its end named them */
  winners: Record<number, number[]>;
}

/** The cards a hint's action puts down: its card, or the exchange's cards. */
function hintedCards(action: GameAction | null): string[] {
  if (!action) return [];
  if (action.type === "exchange") return action.cards;
  const card = cardOf(action);
  return card ? [card] : [];
}

function sameAction(a: GameAction, b: GameAction): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** « Tes choix »: the seat's legal actions other than a card of its hand (Num Win's every
 * action, a trick game's bids, neutralizations and shows), one button each; the hinted one
 * is ringed and described by the hint. */
function Choices({
  t,
  choices,
  hint,
  hintId,
  busy,
  act,
  nameOf,
  me,
}: {
  t: Texts;
  choices: readonly GameAction[];
  hint: GameAction | null;
  hintId: string;
  busy: boolean;
  act: (action: GameAction) => Promise<void>;
  nameOf: (seat: number) => string;
  me: number;
}) {
  return (
    <fieldset class="choices">
      <legend>{t.choices}</legend>
      {choices.map((action, i) => {
        const suggested = hint !== null && sameAction(hint, action);
        return (
          <button
            key={i}
            type="button"
            class={suggested ? "primary hinted" : "primary"}
            aria-describedby={suggested ? hintId : undefined}
            disabled={busy}
            onClick={() => void act(action)}
          >
            {actionLabel(t, action, nameOf, me)}
          </button>
        );
      })}
    </fieldset>
  );
}

function Table({ t, game, live, problem, busy, act: send, join, hint, hinting, askHint, roles, winners }: TableProps) {
  const view = game.view;
  // what the bots just did stays in sight: the finished trick, the round's summary
  const pace = usePace(view);
  const act = async (action: GameAction) => {
    pace.clear();
    await send(action);
  };
  // a card played from the hand (Enter, a tap) keeps the focus in the hand: once the game
  // moved on (or refused the card), the card now at the same place, else the hand's heading
  const handList = useRef<HTMLUListElement>(null);
  const handHeading = useRef<HTMLHeadingElement>(null);
  const refocus = useRef<{ index: number; version: number } | null>(null);
  const playCard = (index: number, action: GameAction) => {
    refocus.current = { index, version: game.version };
    void act(action);
  };
  useEffect(() => {
    const wanted = refocus.current;
    if (!wanted || busy || (game.version === wanted.version && !problem)) return;
    refocus.current = null;
    // the round's summary, when one just opened, has the focus: it says what happened
    if (document.activeElement?.closest(".round-summary")) return;
    const cards = Array.from(handList.current?.querySelectorAll<HTMLButtonElement>("button") ?? []);
    const next = cards[Math.min(wanted.index, cards.length - 1)];
    if (next && !next.disabled) next.focus({ preventScroll: true });
    else handHeading.current?.focus({ preventScroll: true });
  }, [busy, game.version, problem]);
  const legalId = useId();
  const names = game.players.map((p) => p.name);
  const botOf = (seat: number) => game.players[seat]?.bot ?? null;
  const nameOf = (seat: number) => names[seat] ?? t.playerName(seat + 1);
  const seat = game.seat;
  // Num Win opens its snaps to every seat: the turn is the current player's alone
  const mine = seat !== null && (view.ruleset === "numwin" ? view.current_player === seat : view.actors.includes(seat));
  const legal = view.legal_actions ?? [];
  const hand = view.hand ?? [];
  const trick = "trick" in view ? view.trick : [];
  // the trick just finished stays in sight until the next one's first card (every trick game)
  const last = "tricks" in view ? view.tricks.at(-1) : undefined;
  // numwars says how its trick resolved (`result`), the classic edition and numking name its winner
  const lastWinner = last ? ("result" in last ? last.result.winner : last.winner) : null;
  const heldWinner = pace.held ? ("result" in pace.held ? pace.held.result.winner : pace.held.winner) : null;
  const hinted = hintedCards(hint);
  const hintText = !hint
    ? null
    : hint.type === "exchange"
      ? t.hintPassAll(hint.cards.map((card) => cardLabel(t, card)).join(", "))
      : hint.type === "play"
        ? t.hintPlay(cardLabel(t, hint.card))
        : hint.type === "pass"
          ? t.hintPass(cardLabel(t, hint.card))
          : t.hintOtherLower(actionLabel(t, hint, nameOf, seat ?? 0));
  const choices = otherActions(legal);
  // the type a tapped card is sent with when no legal action names it: the API explains why
  const cardType = legal.find((a) => a.type === "play" || a.type === "pass")?.type ?? (view.phase === "exchange" ? "pass" : "play");

  // « Fin de la manche N » below the hand (it never pushes the hand down under a finger)
  const dismissSummary = () => {
    pace.dismiss();
    handHeading.current?.focus({ preventScroll: true });
  };
  const summaryBox = pace.summary ? (
    <RoundSummaryBox
      key={pace.summary.round}
      t={t}
      summary={pace.summary}
      names={names}
      roles={roles[pace.summary.round] ?? null}
      winners={winners[pace.summary.round] ?? null}
      onDismiss={dismissSummary}
    />
  ) : null;

  const onTurn = view.ruleset === "numwin" && view.current_player !== null ? [view.current_player] : view.actors;
  const turn = mine ? t.yourTurn : t.turnOf(onTurn.map(nameOf).join(", "));
  return (
    <section class="play" data-version={game.version}>
      <Heading>{t.gameRound(view.round)}</Heading>
      <p class="muted">
        {{ ...t.gameRulesets, ...t.gameRulesetsMore }[view.ruleset]} · {lookup(t.phases, view.phase)}
        {" · "}
        <span class={live ? "live" : "problem"}>{live ? t.live : t.reconnecting}</span>
      </p>
      <p>{seat === null ? t.spectator : t.youPlay(nameOf(seat))}</p>
      {join ? (
        <fieldset class="choices">
          <legend>{t.joinWithAccount}</legend>
          {names.map((name, i) =>
            // a bot's seat is the server's: nobody joins it
            botOf(i) ? null : (
              <button key={i} type="button" disabled={busy} onClick={() => void join(i)}>
                {t.joinSeat(name)}
              </button>
            ),
          )}
        </fieldset>
      ) : null}
      {view.ruleset === "numwars" && view.role ? <p>{t.yourRole(t.roles[view.role])}</p> : null}
      <p role="status" class={mine ? "turn mine" : "turn"}>
        {view.actors.length > 0 ? turn : ""}
      </p>
      <Countdowns t={t} game={game} nameOf={nameOf} />
      {mine && view.phase === "exchange" && "exchange_size" in view ? (
        <p>{t.passHint(view.exchange_size - (view.passed_counts[seat] ?? 0))}</p>
      ) : null}
      {mine && askHint && legal.length > 0 ? (
        <div class="row hint-row">
          <button type="button" disabled={busy || hinting} onClick={() => void askHint()}>
            {t.hintAsk}
          </button>
        </div>
      ) : null}
      <p role="status" id={`${legalId}-hint`} class={hintText ? "hint-box" : undefined}>
        {hinting ? t.hintThinking : (hintText ?? "")}
      </p>
      {seat !== null && view.ruleset !== "numwin" ? null : <Problem refusal={problem} shown={[]} />}

      {view.ruleset === "numwin" ? (
        <NumWinBoard t={t} view={view} seat={seat} nameOf={nameOf} />
      ) : (
        <>
          <h2 id={`${legalId}-trick`}>{trick.length === 0 && last ? t.lastTrick : t.trickNow}</h2>
          {trick.length === 0 && last ? (
            <div class="last-trick">
              <ol class="trick" aria-labelledby={`${legalId}-trick`}>
                {last.cards.map((c) => (
                  <li key={`${c.seat}-${c.card}`}>{t.played(nameOf(c.seat), cardLabel(t, c.card))}</li>
                ))}
              </ol>
              <p>{lastWinner === null ? t.trickNobody : t.trickTakenBy(nameOf(lastWinner))}</p>
            </div>
          ) : trick.length === 0 ? (
            <p class="muted">{t.trickEmpty}</p>
          ) : (
            <ol class="trick" aria-labelledby={`${legalId}-trick`}>
              {trick.map((c) => (
                <li key={`${c.seat}-${c.card}`}>{t.played(nameOf(c.seat), cardLabel(t, c.card))}</li>
              ))}
            </ol>
          )}
          {pace.held && trick.length > 0 ? (
            <div class="last-trick held">
              <h3 id={`${legalId}-held`}>{t.lastTrick}</h3>
              <ol class="trick" aria-labelledby={`${legalId}-held`}>
                {pace.held.cards.map((c) => (
                  <li key={`${c.seat}-${c.card}`}>{t.played(nameOf(c.seat), cardLabel(t, c.card))}</li>
                ))}
              </ol>
              <p>{heldWinner === null ? t.trickNobody : t.trickTakenBy(nameOf(heldWinner))}</p>
            </div>
          ) : null}
        </>
      )}

      {seat !== null && view.ruleset === "numwin" && choices.length > 0 ? (
        <Choices
          t={t}
          choices={choices}
          hint={hint}
          hintId={`${legalId}-hint`}
          busy={busy}
          act={act}
          nameOf={nameOf}
          me={seat ?? 0}
        />
      ) : null}

      {seat !== null && view.ruleset !== "numwin" ? (
        <>
          <h2 id={`${legalId}-hand`} ref={handHeading} tabIndex={-1} class="focus-title hand-title">
            {t.yourHand}
          </h2>
          {/* said only when a card can be played (not while bidding, nor on another's turn) */}
          {hand.some((card) => legal.some((a) => cardOf(a) === card)) ? (
            <p class="muted" id={legalId}>
              {t.legalHint}
            </p>
          ) : null}
          <p hidden id={`${legalId}-legal`}>
            {t.legalCard}
          </p>
          <ul class="hand" ref={handList} aria-labelledby={`${legalId}-hand`}>
            {hand.map((card, index) => {
              const action = legal.find((a) => cardOf(a) === card);
              const suggested = hinted.includes(card);
              const described = [action ? `${legalId}-legal` : null, suggested ? `${legalId}-hint` : null]
                .filter((one) => one !== null)
                .join(" ");
              return (
                <li key={card}>
                  <button
                    type="button"
                    class={`card ${card.split("-")[0] ?? ""}${action ? " legal" : ""}${suggested ? " hinted" : ""}`}
                    aria-describedby={described || undefined}
                    disabled={busy}
                    onClick={() => playCard(index, action ?? { type: cardType, card })}
                  >
                    {cardLabel(t, card)}
                  </button>
                </li>
              );
            })}
          </ul>
          {/* a refused card's reason right under the hand, where the player looks */}
          <Problem refusal={problem} shown={[]} />
          {summaryBox}
          {choices.length > 0 ? (
            <Choices
              t={t}
              choices={choices}
              hint={hint}
              hintId={`${legalId}-hint`}
              busy={busy}
              act={act}
              nameOf={nameOf}
              me={seat ?? 0}
            />
          ) : null}
        </>
      ) : null}

      {seat !== null && view.ruleset !== "numwin" ? null : summaryBox}
      <h2 id={`${legalId}-table`}>{t.table}</h2>
      <div class="scroll" tabIndex={0} role="region" aria-labelledby={`${legalId}-table`}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t.player}</th>
              <th scope="col">{t.cardsInHand}</th>
              {view.ruleset === "numking" ? (
                <>
                  <th scope="col">{t.bidCol}</th>
                  <th scope="col">{t.tricksCol}</th>
                </>
              ) : null}
              <th scope="col">{t.total}</th>
            </tr>
          </thead>
          <tbody>
            {names.map((name, i) => (
              <tr key={i} class={view.actors.includes(i) ? "leader" : undefined}>
                <th scope="row">
                  {name}
                  {botOf(i) ? <span class="muted"> ({t.botTag(lookup(t.botLevels, botOf(i) ?? ""))})</span> : null}
                </th>
                <td>{"hand_counts" in view ? view.hand_counts[i] : "combinations" in view ? view.combinations[i]?.count : ""}</td>
                {view.ruleset === "numking" ? (
                  <>
                    <td>{view.bids[i] ?? "—"}</td>
                    <td>{view.tricks_taken[i] ?? 0}</td>
                  </>
                ) : null}
                <td>{t.points(view.scores[i] ?? 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ScrollCue text={t.scrollCue} />
    </section>
  );
}

/** « Fin de la manche N »: each player's round score, until dismissed or the player acts. */
function RoundSummaryBox({
  t,
  summary,
  names,
  roles,
  winners,
  onDismiss,
}: {
  t: Texts;
  summary: { round: number; scores: number[] };
  names: string[];
  /** who had which role (Num Wars), once the round's end said so */
  roles: Role[] | null;
  /** who won the round (seats), when the round's end said so */
  winners: number[] | null;
  onDismiss: () => void;
}) {
  const titleId = useId();
  // its heading takes the focus when it opens (a screen reader says it), without scrolling:
  // the box sits below the hand, nothing moves under the player's finger
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, []);
  const won = winners?.map((seat) => names[seat] ?? t.playerName(seat + 1)) ?? [];
  return (
    <section class="notice round-summary" aria-labelledby={titleId}>
      <h2 id={titleId} ref={heading} tabIndex={-1}>
        {t.roundOver(summary.round)}
      </h2>
      {won.length > 0 ? <p class="round-winner">{t.roundWonBy(won)}</p> : null}
      <ul>
        {names.map((name, i) => (
          <li key={i}>
            {roles?.[i]
              ? t.summaryLine(name, t.points(summary.scores[i] ?? 0), t.roles[roles[i] ?? "civil"])
              : t.played(name, t.points(summary.scores[i] ?? 0))}
          </li>
        ))}
      </ul>
      <button type="button" onClick={onDismiss}>
        {t.roundContinue}
      </button>
    </section>
  );
}

type NumWinView = Schemas["NumWinView"];

/** Num Win's table: the seat's combination (its hidden cards said so, the locked ones marked),
 * the card in hand, the discard pile's top card and the draw pile. */
function NumWinBoard({ t, view, seat, nameOf }: { t: Texts; view: NumWinView; seat: number | null; nameOf: (seat: number) => string }) {
  const titleId = useId();
  const mine = seat === null ? undefined : view.combinations.find((c) => c.seat === seat);
  return (
    <>
      {mine ? (
        <>
          <h2 id={titleId}>{t.yourCombination}</h2>
          <ol class="hand" aria-labelledby={titleId}>
            {mine.cards.map((card, i) => {
              const label = card ? cardLabel(t, card) : t.hiddenCard;
              return (
                <li key={i} class={`card ${card?.split("-")[0] ?? ""}`}>
                  {t.combinationCard(i + 1, mine.locked[i] ? t.lockedCard(label) : label)}
                </li>
              );
            })}
          </ol>
        </>
      ) : null}
      {view.in_hand && view.in_hand.card ? <p class="turn">{t.inHand(cardLabel(t, view.in_hand.card))}</p> : null}
      <p>{view.discard ? t.discardTop(cardLabel(t, view.discard)) : t.discardEmpty}</p>
      <p class="muted">{t.drawPile(view.draw_pile_count)}</p>
    </>
  );
}

function actionLabel(t: Texts, action: GameAction, nameOf: (seat: number) => string, me: number): string {
  switch (action.type) {
    case "draw":
    case "take":
    case "call":
      return t.actionWords[action.type];
    case "discard":
    case "add":
      return action.call ? t.andCall(t.actionWords[action.type]) : t.actionWords[action.type];
    case "swap":
      return action.call ? t.andCall(t.swapAt(action.position + 1)) : t.swapAt(action.position + 1);
    case "snap":
      return (action.owner ?? me) === me ? t.yourSnapAt(action.position + 1) : t.snapAt(action.position + 1, nameOf(action.owner ?? me));
    case "target": {
      const label = t.targetAt(nameOf(action.seat), action.position + 1);
      return action.call ? t.andCall(label) : label;
    }
    case "neutralize":
      return action.neutralize ? t.neutralizeYes : t.neutralizeNo;
    case "bid":
      return t.playBid(action.tricks);
    case "show":
      return action.card ? t.showCard(cardLabel(t, action.card)) : t.showNone;
    default:
      return action.type;
  }
}

// -- the end: the result, and the deal checked against its commitment --------------------------

type Check = "checking" | "verified" | "mismatch" | "cannot";

/** How often a game over is read again for a rematch another seat asked for (ms). */
const REMATCH_POLL_MS = 3000;

interface GameOverProps {
  t: Texts;
  game: Game;
  /** the seat's credential (its token, or the session acting for it); none: a spectator */
  token: string | null;
  navigate: Navigate;
  /** why it ended, when a clock ran out while this page watched */
  announce: JSX.Element | null;
}

function GameOver({ t, game, token, navigate, announce }: GameOverProps) {
  const [check, setCheck] = useState<Check>("checking");
  const { problem, setProblem, busy, send } = useRequest(t.networkError);
  const seed = game.seed_decimal ?? null;
  const salt = game.salt ?? null;

  useEffect(() => {
    if (seed === null || salt === null) {
      setCheck("cannot");
      return;
    }
    checkCommitment(seed, salt, game.seed_commitment)
      .then((ok) => setCheck(ok ? "verified" : "mismatch"))
      .catch(() => setCheck("cannot"));
  }, [seed, salt, game.seed_commitment]);

  // the rematch another seat asks for shows here: the game, over, has no more events; it is
  // read again every few seconds until its `rematch` names the new game (« Rejoindre la
  // revanche » then)
  const [rematchId, setRematchId] = useState(game.rematch ?? null);
  useEffect(() => {
    if (game.rematch) setRematchId(game.rematch);
  }, [game.rematch]);
  useEffect(() => {
    if (rematchId || !token || game.seat === null) return;
    const timer = setInterval(() => {
      void api
        .GET("/v1/games/{game_id}", { params: { path: { game_id: game.id } }, headers: bearer(token) })
        .then(({ data }) => {
          if (data?.rematch) setRematchId(data.rematch);
        })
        .catch(() => undefined);
    }, REMATCH_POLL_MS);
    return () => clearInterval(timer);
  }, [rematchId, token, game.id, game.seat]);

  /** « Revanche »: the rematch (created by the first seat that asks, 201; the same game to the
   * others, 200), with this seat's new token when the answer carries it (its first call), kept
   * on the device; then its screen. */
  async function rematch() {
    if (!token) return;
    await send(async () => {
      const { data, error } = await api.POST("/v1/games/{game_id}/rematch", {
        params: { path: { game_id: game.id } },
        headers: bearer(token),
      });
      if (!data) {
        const refused = refusal(error, t.networkError);
        setProblem(refused.code === "game-active" ? { ...refused, detail: t.rematchRefused } : refused);
        return;
      }
      const mine = data.seats.find((s) => s.token);
      if (mine?.token) rememberToken(data.id, mine.token);
      navigate(`/parties/${data.id}`);
    });
  }

  const totalsId = useId();
  const names = game.players.map((p) => p.name);
  const result = game.result ?? null;
  const winners = result ? result.winners.map((s) => names[s] ?? t.playerName(s + 1)).join(", ") : "";
  // Num Wars: every role is revealed at the round's end, the last round's in the final view
  const shown = game.view.ruleset === "numwars" && game.status === "over" ? game.view.roles : [];
  const roles = shown.length > 0 && shown.every((role) => role !== null) ? shown.flatMap((role) => (role ? [role] : [])) : null;
  return (
    <section class="ended" data-version={game.version}>
      <Heading>{game.status === "over" ? t.gameOver : t.gameAbandoned}</Heading>
      {announce}
      {token && game.seat !== null ? (
        <div class="row">
          <button type="button" class="primary" disabled={busy} onClick={() => void rematch()}>
            {rematchId ? t.joinRematch : t.rematch}
          </button>
        </div>
      ) : null}
      <Problem refusal={problem} shown={[]} />
      {result ? (
        <>
          <p class="leader">{t.winner(winners)}</p>
          <h2 id={`${totalsId}-totals`}>{t.matchTotals}</h2>
          <div class="scroll" tabIndex={0} role="region" aria-labelledby={`${totalsId}-totals`}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.player}</th>
                  {result.rounds.map((_, r) => (
                    <th scope="col" key={r}>
                      {t.roundCol(r + 1)}
                    </th>
                  ))}
                  <th scope="col">{t.total}</th>
                </tr>
              </thead>
              <tbody>
                {names.map((name, i) => (
                  <tr key={i} class={result.winners.includes(i) ? "leader" : undefined}>
                    <th scope="row">{name}</th>
                    {result.rounds.map((round, r) => (
                      <td key={r}>{round.players.find((p) => p.seat === i)?.score ?? ""}</td>
                    ))}
                    <td>{t.points(result.totals[i] ?? 0)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ScrollCue text={t.scrollCue} />
        </>
      ) : null}
      {roles ? (
        <>
          <h2>{t.lastRoles(game.view.round)}</h2>
          <ul>
            {roles.map((role, i) => (
              <li key={i}>{t.played(names[i] ?? t.playerName(i + 1), t.roles[role])}</li>
            ))}
          </ul>
        </>
      ) : null}
      <h2>{t.dealCheck}</h2>
      <div role="status" class={check === "mismatch" ? "problem" : "notice"}>
        {check === "checking" ? <p>{t.dealChecking}</p> : null}
        {check === "verified" ? (
          <>
            <p class="verified">{t.dealVerified}</p>
            <p class="muted fine">{t.dealVerifiedText(game.seed_commitment)}</p>
          </>
        ) : null}
        {check === "mismatch" ? <p>{t.dealMismatch}</p> : null}
        {check === "cannot" ? <p>{t.dealCannot}</p> : null}
        {seed !== null && salt !== null ? <p class="muted fine">{t.seedLine(seed, salt)}</p> : null}
      </div>
    </section>
  );
}
