// What the online game screens share: the game's types from the spec, the seat link (the
// token in the URL fragment only), card names, the live watch of a game (the game as its
// stream shows it after each move's events) and the seed commitment's check (api-contract.md
// "Stored games").

import type { paths } from "../schema";
import { type Schemas, api, bearer } from "./api";
import type { Texts } from "./i18n";

export type Game = Schemas["GameOut"];
export type GameAction = paths["/v1/games/{game_id}/actions"]["post"]["requestBody"]["content"]["application/json"];
export type PlayRuleset = Game["ruleset"];
type EventKind = Schemas["EventOut"]["kind"];

/** Every event kind the stream names (`event:` = the kind): the round's, the roles, the
 * timeouts are read from them; the game itself comes in the stream's `game` messages. */
const KINDS = [
  "action",
  "add",
  "bid",
  "bomb",
  "call",
  "deal",
  "decision",
  "discard",
  "draw",
  "exchange",
  "fill-up",
  "flip",
  "malus",
  "match-over",
  "neutralize",
  "pass",
  "penalty",
  "play",
  "quantum",
  "reshuffle",
  "role-revealed",
  "round-over",
  "round-start",
  "show",
  "snap",
  "swap",
  "take",
  "target",
  "timeout",
  "trick",
  "turn",
  "wrong-claim",
] satisfies EventKind[];
// a kind the spec adds and this list lacks fails `tsc` here
type Unlisted = Exclude<EventKind, (typeof KINDS)[number]>;
const everyKind: [Unlisted] extends [never] ? true : false = true;
void everyKind;

/** A word of a table, else the key itself (a phase or card added later shows as its code). */
export function lookup(table: Record<string, string>, key: string): string {
  return table[key] ?? key;
}

/** « Rouge 7 », « Rainbow 12 », « Bombe » … */
export function cardLabel(t: Texts, code: string): string {
  const valued = /^([a-z]+)-(\d+)$/.exec(code);
  if (valued?.[1] && valued[2]) return `${lookup(t.colors, valued[1])} ${valued[2]}`;
  return lookup(t.specials, code);
}

/** The card an action puts down from the hand (a play, or a pass of the exchange), if any. */
export function cardOf(action: GameAction): string | null {
  return action.type === "play" || action.type === "pass" ? action.card : null;
}

/** The legal actions that are no card of the hand: choices shown as buttons. The exchange's
 * all-at-once `exchange` is left out (its cards are passed one by one). */
export function otherActions(legal: readonly GameAction[]): GameAction[] {
  return legal.filter((a) => a.type !== "play" && a.type !== "pass" && a.type !== "exchange");
}

// -- the seat's token: in the link's fragment, remembered on the device -------------------------

const GAMES = "numrules.games";

function remembered(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(GAMES) ?? "{}");
    const tokens: Record<string, string> = {};
    if (typeof parsed === "object" && parsed !== null) {
      for (const [id, token] of Object.entries(parsed)) {
        if (typeof token === "string") tokens[id] = token;
      }
    }
    return tokens;
  } catch {
    return {};
  }
}

export function seatLink(id: string, token: string): string {
  return `${location.origin}/parties/${id}#jeton=${encodeURIComponent(token)}`;
}

/** The token of the page's fragment (`#jeton=` or `#token=`), remembered for this game; else
 * the one this device remembers; else none (a spectator). */
export function tokenFromFragment(id: string): string | null {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = fragment.get("jeton") ?? fragment.get("token");
  if (token) {
    localStorage.setItem(GAMES, JSON.stringify({ ...remembered(), [id]: token }));
    return token;
  }
  return remembered()[id] ?? null;
}

/** Forgets a seat's token the server refuses now (revoked): on this device, if it is the one
 * remembered for the game, and in the address bar's fragment, if it came from there. */
export function forgetRevoked(id: string, token: string): void {
  if (remembered()[id] === token) rememberToken(id, null);
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  if ((fragment.get("jeton") ?? fragment.get("token")) === token) {
    history.replaceState(null, "", location.pathname);
  }
}

/** Keeps a seat's token got otherwise than by a link (an open seat claimed, a rematch), as a
 * link's fragment would; `null` forgets it (the seat left). */
export function rememberToken(id: string, token: string | null): void {
  const tokens = remembered();
  if (token) tokens[id] = token;
  else delete tokens[id];
  localStorage.setItem(GAMES, JSON.stringify(tokens));
}

// -- the games this device created: their seats' links, kept here only -----------------------

const CREATED = "numrules.created-games";

/** A game this device created, with every seat's token it received (secrets: kept in
 * localStorage only, shown in links as the URL fragment). */
export interface CreatedGame {
  id: string;
  ruleset: PlayRuleset;
  at: string;
  seats: { seat: number; name: string; token: string }[];
  /** the seats' names the server's bots play (no link: nobody acts for them) */
  bots?: string[];
  /** the open seats at creation (numbered from 0): no link, whoever claims one sits there */
  open?: number[];
}

export function createdGames(): CreatedGame[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(CREATED) ?? "[]");
    if (!Array.isArray(parsed)) return [];
    const games: CreatedGame[] = [];
    for (const item of parsed) {
      if (typeof item !== "object" || item === null) continue;
      const id: unknown = "id" in item ? item.id : null;
      const ruleset: unknown = "ruleset" in item ? item.ruleset : null;
      const at: unknown = "at" in item ? item.at : null;
      const seats: unknown = "seats" in item ? item.seats : null;
      const known = RULESETS.find((r) => r === ruleset);
      if (typeof id !== "string" || !known || typeof at !== "string" || !Array.isArray(seats)) continue;
      const kept: CreatedGame["seats"] = [];
      for (const one of seats) {
        if (typeof one !== "object" || one === null) continue;
        const seat: unknown = "seat" in one ? one.seat : null;
        const name: unknown = "name" in one ? one.name : null;
        const token: unknown = "token" in one ? one.token : null;
        if (typeof seat === "number" && typeof name === "string" && typeof token === "string") kept.push({ seat, name, token });
      }
      const bots: unknown = "bots" in item ? item.bots : null;
      const botNames = Array.isArray(bots) ? bots.filter((b): b is string => typeof b === "string") : [];
      const open: unknown = "open" in item ? item.open : null;
      const openSeats = Array.isArray(open) ? open.filter((n): n is number => typeof n === "number") : [];
      games.push({ id, ruleset: known, at, seats: kept, bots: botNames, open: openSeats });
    }
    return games;
  } catch {
    return [];
  }
}

const RULESETS: readonly PlayRuleset[] = ["numwars", "numwars-classic", "numking", "numwin"];

/** Keeps a created game's links on the device (the newest first, the last 20). */
export function rememberCreated(game: CreatedGame): void {
  const others = createdGames().filter((g) => g.id !== game.id);
  localStorage.setItem(CREATED, JSON.stringify([game, ...others].slice(0, 20)));
}

export function createdGame(id: string): CreatedGame | null {
  return createdGames().find((g) => g.id === id) ?? null;
}

// -- the live game --------------------------------------------------------------------------

interface Watchers {
  onGame: (game: Game) => void;
  onLive: (live: boolean) => void;
  onProblem: (error: unknown) => void;
  /** the token, which showed the game, is refused now (401: no longer the seat's token or a
   * live session, e.g. after a password reset); the watch has stopped */
  onRevoked?: () => void;
  /** a `timeout` event of the stream: the seat whose clock ran out, what the clock did and
   * the game's version then */
  onTimeout?: (seat: number, abandon: boolean, version: number) => void;
  /** a `round-over` event: the round it ended (the last `round-start`'s) and each seat's
   * role, every one revealed then (Num Wars' secret-roles edition; none elsewhere), and the
   * round's winners (seats) when the event names them (the Num Wars editions) */
  onRoundOver?: (round: number, roles: Role[] | null, winners: number[] | null) => void;
}

export type Role = Schemas["NumWarsView"]["role"] & string;
const ROLES: readonly Role[] = ["poseur", "complice", "demineur", "agent", "civil"];

/** The `data` of a stream event's JSON, or null. */
function dataOf(raw: unknown): object | null {
  if (typeof raw !== "string") return null;
  try {
    const event: unknown = JSON.parse(raw);
    if (typeof event !== "object" || event === null || !("data" in event)) return null;
    const data: unknown = event.data;
    return typeof data === "object" && data !== null ? data : null;
  } catch {
    return null;
  }
}

/** The round a `round-start` event opens. */
/** The game of a stream's `game` message (the answer of a read, as JSON), or null when it is
 * not one. */
function gameOf(raw: string): Game | null {
  try {
    const value: unknown = JSON.parse(raw);
    return isGame(value) ? value : null;
  } catch {
    return null;
  }
}

function isGame(value: unknown): value is Game {
  return (
    typeof value === "object" &&
    value !== null &&
    "id" in value &&
    typeof value.id === "string" &&
    "version" in value &&
    typeof value.version === "number" &&
    "status" in value &&
    typeof value.status === "string" &&
    "view" in value &&
    typeof value.view === "object"
  );
}

function roundOf(raw: unknown): number | null {
  const data = dataOf(raw);
  const round: unknown = data && "round" in data ? data.round : null;
  return typeof round === "number" ? round : null;
}

/** The roles a `round-over` event reveals (seat order), or null when it names none. */
function rolesOf(raw: unknown): Role[] | null {
  const data = dataOf(raw);
  const roles: unknown = data && "roles" in data ? data.roles : null;
  if (!Array.isArray(roles)) return null;
  const known = roles.flatMap((role: unknown) => ROLES.filter((one) => one === role));
  return known.length === roles.length ? known : null;
}

/** The seats a `round-over` event names as the round's winners, or null when it names none. */
function winnersOf(raw: unknown): number[] | null {
  const data = dataOf(raw);
  const winners: unknown = data && "winners" in data ? data.winners : null;
  if (!Array.isArray(winners) || winners.length === 0) return null;
  const seats = winners.filter((seat: unknown): seat is number => typeof seat === "number");
  return seats.length === winners.length ? seats : null;
}

// -- the server's time, for the turn clocks ---------------------------------------------------

let skew = 0;

/** The server's clock now, in ms since the epoch: this device's clock moved by the difference
 * the last game answer showed. It is read from that answer's `Date` header (the server's time
 * when it answered, to the second) minus this device's time when the answer arrived, not from
 * the deadline minus the arrival time (a deadline says when the turn ends, not what time it
 * is): a device whose clock is minutes off still counts down the server's seconds, at most
 * about one second early (the header drops the milliseconds, and the answer's travel time). */
export function serverNow(): number {
  return Date.now() + skew;
}

function measureSkew(response: Response | undefined): void {
  const sent = Date.parse(response?.headers.get("Date") ?? "");
  if (Number.isFinite(sent)) skew = sent - Date.now();
}

/** How the time left to `at` reads: « 0:42 », « 12:05 », never below « 0:00 ». */
export function clockText(at: string, most?: number): string {
  // never more than the clock's turn (a device a little behind the server's second would
  // show « 0:31 » for a 30 s turn)
  const left = Math.min(most ?? Infinity, Math.max(0, Math.ceil((Date.parse(at) - serverNow()) / 1000)));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

/** The seconds left to `at` by the server's clock (0 once passed). */
export function secondsLeft(at: string): number {
  return Math.max(0, (Date.parse(at) - serverNow()) / 1000);
}

/** The seat and the clock's choice of a `timeout` event's data (the stream's JSON event). */
function timeoutOf(raw: string): { seat: number; abandon: boolean; version: number } | null {
  try {
    const event: unknown = JSON.parse(raw);
    if (typeof event !== "object" || event === null) return null;
    const seat: unknown = "seat" in event ? event.seat : null;
    const data: unknown = "data" in event ? event.data : null;
    if (typeof seat !== "number" || typeof data !== "object" || data === null) return null;
    const how: unknown = "on_timeout" in data ? data.on_timeout : null;
    const version: unknown = "version" in data ? data.version : null;
    return { seat, abandon: how === "abandon", version: typeof version === "number" ? version : 0 };
  } catch {
    return null;
  }
}

/** Loads the game as the token's seat sees it and keeps it current: one stream of its events
 * (a fresh single-use ticket at each opening, resumed after the last `seq` received) with
 * `view=true`, whose `game` message after each version's events is the game as a read would
 * answer it (an older version never replaces a newer one; reads happen only at the start, on
 * a lost stream and at its end, and coalesce). `accept` takes a view the app got otherwise (an
 * action's answer). */
export function watchGame(id: string, token: string | null, on: Watchers) {
  let current: Game | null = null;
  let stopped = false;
  let loading = false;
  let again = false;
  let last = 0;
  let round = 0;
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  // a read after events that no `game` followed (a server that ignores `view=true`)
  let fallback: ReturnType<typeof setTimeout> | undefined;

  function accept(game: Game, partial = false): void {
    if (stopped || (current && game.version < current.version)) return;
    // an action's answer merged into the game: never over the stream's game of its version
    if (partial && current && game.version === current.version) return;
    // an action's answer (status as it was) never takes back the end a GET of its version saw,
    // nor a read of a waiting game still in flight the start a `start` answer showed
    if (current && game.version === current.version) {
      if (current.status === "over" || current.status === "abandoned") return;
      if (current.status === "active" && game.status === "waiting") return;
    }
    current = game;
    on.onGame(game);
  }

  async function refresh(): Promise<void> {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      do {
        again = false;
        const { data, error, response } = await api.GET("/v1/games/{game_id}", {
          params: { path: { game_id: id } },
          headers: token ? bearer(token) : {},
        });
        measureSkew(response);
        if (data) accept(data);
        else if (response.status === 401 && current && token) return revoked();
        else if (!current) on.onProblem(error);
      } while (again && !stopped);
    } catch {
      if (!current) on.onProblem(null);
    } finally {
      loading = false;
    }
  }

  async function open(): Promise<void> {
    // a waiting game logs no event until it starts (seats claimed or left are no events):
    // it is read again every 2 s, and its stream opened once it is active
    if (!stopped && current?.status === "waiting") {
      retry = setTimeout(() => void refresh().then(() => open()), 2000);
      return;
    }
    if (stopped || (current && current.status !== "active")) return;
    let url = `/v1/games/${id}/stream?after=${last}&view=true`;
    try {
      if (token) {
        const { data, response } = await api.POST("/v1/games/{game_id}/stream-tickets", {
          params: { path: { game_id: id } },
          headers: bearer(token),
        });
        if (response.status === 401) {
          if (current) return revoked();
          on.onLive(false); // never shown: the read before said why, and nothing retries
          return;
        }
        if (!data) throw new Error("no ticket");
        url += `&ticket=${encodeURIComponent(data.ticket)}`;
      }
    } catch {
      on.onLive(false);
      retry = setTimeout(() => void open(), 2000);
      return;
    }
    if (stopped) return;
    const stream = new EventSource(url);
    source = stream;
    const onEvent = (event: MessageEvent) => {
      if (event.type === "timeout" && typeof event.data === "string") {
        const timeout = timeoutOf(event.data);
        if (timeout) on.onTimeout?.(timeout.seat, timeout.abandon, timeout.version);
      }
      if (event.type === "round-start") round = roundOf(event.data) ?? round;
      if (event.type === "round-over") {
        const roles = rolesOf(event.data);
        const winners = winnersOf(event.data);
        if (roles || winners) on.onRoundOver?.(round, roles, winners);
      }
      const seq = Number(event.lastEventId);
      if (Number.isInteger(seq) && seq > last) last = seq;
      if (fallback === undefined) {
        fallback = setTimeout(() => {
          fallback = undefined;
          void refresh();
        }, 1000);
      }
    };
    for (const kind of KINDS) stream.addEventListener(kind, onEvent);
    // the game at the version whose events came just before (the same answer as a read)
    stream.addEventListener("game", (event: MessageEvent) => {
      clearTimeout(fallback);
      fallback = undefined;
      const game = typeof event.data === "string" ? gameOf(event.data) : null;
      if (game) accept(game);
      else void refresh();
    });
    stream.addEventListener("end", (event: MessageEvent) => {
      stream.close();
      void refresh();
      // a server shutting down ends its streams of games still in play: open it again
      if (event.data === "active" || event.data === "waiting") {
        retry = setTimeout(() => void open(), 2000);
      }
    });
    stream.onopen = () => on.onLive(true);
    stream.onerror = () => {
      // a ticket is single use: never let EventSource reconnect with it; ask a new one
      stream.close();
      if (stopped) return;
      on.onLive(false);
      void refresh();
      retry = setTimeout(() => void open(), 2000);
    };
  }

  function stop(): void {
    stopped = true;
    clearTimeout(retry);
    clearTimeout(fallback);
    source?.close();
  }

  function revoked(): void {
    if (stopped) return;
    stop();
    on.onRevoked?.();
  }

  void refresh().then(() => open());
  return { accept, stop };
}

// -- the deal's check ------------------------------------------------------------------------

/** Whether `commitment` is the lowercase hex SHA-256 of `"<seed>:<salt>"` (UTF-8), as the API
 * documents `seed_commitment`; throws when this browser has no WebCrypto. */
export async function checkCommitment(seed: string, salt: string, commitment: string): Promise<boolean> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${seed}:${salt}`));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return hex === commitment.toLowerCase();
}
