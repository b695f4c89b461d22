// Every operation of the numrules API used as a front-end would, through openapi-fetch's typed
// client and the types openapi-typescript generates from the served spec (schema.d.ts).
// `tsc --strict --noEmit` must accept it as it is: no cast, no `any`. The `@ts-expect-error`
// lines are requests the types must refuse (tsc fails when such a line compiles).
// It is type-checked only, never run (tests/api/test_typescript.py).

import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type Schemas = components["schemas"];
type View = Schemas["GameOut"]["view"];

const api = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

// --- the catalogue and the stateless rules endpoints ----------------------------------------

export async function catalogue(): Promise<string[]> {
  const { data } = await api.GET("/v1/rulesets");
  const ids: string[] = [];
  for (const ruleset of data?.rulesets ?? []) {
    const id: "numwars" | "numwars-classic" | "numking" | "numwin" = ruleset.id;
    ids.push(`${id} ${ruleset.players.min}-${ruleset.players.max}`);
  }
  const one = await api.GET("/v1/rulesets/{ruleset}", {
    params: { path: { ruleset: "numking" } },
    headers: { "Accept-Language": "fr" },
  });
  if (one.data) ids.push(one.data.id);
  await api.GET("/healthz");
  await api.GET("/readyz");
  await api.GET("/v1/terms");
  return ids;
}

export async function rules(): Promise<number> {
  let total = 0;
  // decks, their options as query parameters
  const decks = await Promise.all([
    api.GET("/v1/rulesets/numwars/deck", { params: { query: { players: 4 } } }),
    api.GET("/v1/rulesets/numwars-classic/deck", { params: { query: { players: 4, speed: true } } }),
    api.GET("/v1/rulesets/numking/deck", { params: { query: { players: 3, zeros: true } } }),
    api.GET("/v1/rulesets/numwin/deck", { params: { query: { players: 4 } } }),
  ]);
  for (const deck of decks) total += deck.data?.hand_size ?? 0;

  // deals: fields with a default may be left out
  const dealt = await api.POST("/v1/rulesets/numwars/deal", {
    body: { players: 4, seed: 7, options: { exchange: 2 } },
  });
  const roles: ("poseur" | "complice" | "demineur" | "agent" | "civil")[] | undefined =
    dealt.data?.roles;
  total += roles?.length ?? 0;
  await api.POST("/v1/rulesets/numwars-classic/deal", { body: { players: 3, seed: 1 } });
  await api.POST("/v1/rulesets/numking/deal", { body: { players: 3, seed: 1, round: 2 } });
  const numwin = await api.POST("/v1/rulesets/numwin/deal", { body: { players: 4, seed: 1 } });
  total += numwin.data?.draw_pile_count ?? 0;

  // legal moves and validation (`trick` defaults to a lead)
  await api.POST("/v1/rulesets/numwars/legal-moves", {
    body: { players: 4, hand: ["red-3", "rainbow-4"] },
  });
  await api.POST("/v1/rulesets/numwars-classic/legal-moves", {
    body: { players: 4, hand: ["shadow-10"], trick: [{ seat: 0, card: "rainbow-12" }] },
  });
  const kingMoves = await api.POST("/v1/rulesets/numking/legal-moves", {
    body: { players: 3, hand: ["infinity", "rainbow-3"] },
  });
  total += kingMoves.data?.infinity?.length ?? 0;
  const checked = await api.POST("/v1/rulesets/numwars-classic/validate-move", {
    body: {
      players: 4,
      hand: ["shadow-10", "shadow-14"],
      trick: [{ seat: 0, card: "rainbow-12" }],
      card: "shadow-10",
    },
  });
  if (checked.data && !checked.data.legal) total += checked.data.legal_moves.length;
  await api.POST("/v1/rulesets/numwars/validate-move", {
    body: { players: 4, hand: ["red-3"], card: "red-3" },
  });
  await api.POST("/v1/rulesets/numking/validate-move", {
    body: { players: 3, hand: ["infinity"], card: "infinity", declared: 17 },
  });

  // tricks
  const resolved = await api.POST("/v1/rulesets/numwars/resolve-trick", {
    body: {
      players: 3,
      trick: [
        { seat: 0, card: "red-3" },
        { seat: 1, card: "red-5" },
        { seat: 2, card: "red-9" },
      ],
    },
  });
  const outcome = resolved.data?.bomb?.outcome;
  if (outcome !== undefined) total += outcome.length;
  await api.POST("/v1/rulesets/numwars-classic/resolve-trick", {
    body: {
      players: 3,
      trick: [
        { seat: 0, card: "red-3" },
        { seat: 1, card: "red-5" },
        { seat: 2, card: "red-9" },
      ],
    },
  });
  const king = await api.POST("/v1/rulesets/numking/resolve-trick", {
    body: {
      players: 3,
      trick: [
        { seat: 0, card: "infinity", declared: 0 },
        { seat: 1, card: "rainbow-5" },
        { seat: 2, card: "shadow-9" },
      ],
    },
  });
  total += king.data?.cancelled?.length ?? 0;

  // scoring: `pairs` and `locked` default to []
  const scored = await api.POST("/v1/rulesets/numwars/score-round", {
    body: {
      players: [
        { captured: ["red-3"], role: "poseur" },
        { captured: ["numx"], role: "demineur" },
        { captured: ["rainbow-14", "shadow-14"], pairs: [["rainbow-10", "shadow-10"]], role: "civil" },
      ],
      bomb_outcome: "kept",
    },
  });
  for (const player of scored.data?.players ?? []) {
    for (const line of player.breakdown) {
      total += line.points;
      // a line's kind is a closed set a screen switches over (keeping a default branch)
      const kind: Schemas["ScoreLine"]["kind"] = line.kind;
      if (kind === "role-bonus") total += 0;
    }
  }
  await api.POST("/v1/rulesets/numwars-classic/score-round", {
    body: { players: [{ captured: ["rainbow-14", "shadow-14"] }] },
  });
  await api.POST("/v1/rulesets/numking/score-round", {
    body: { cards: 4, players: [{ bid: 1, tricks: 1 }] },
  });
  await api.POST("/v1/rulesets/numwin/score-round", {
    body: {
      players: [{ combination: ["red-1", "red-2", "red-3", "red-4", "red-5"] }],
      caller: null,
    },
  });
  await api.POST("/v1/rulesets/numwin/score-round", {
    body: { players: [{ combination: ["red-1"], locked: [["red-2", "blue-2"], ["red-3", "blue-3"]] }] },
  });
  return total;
}

// @ts-expect-error: a breakdown line's kind is one of the registered kinds, not any string
export const unknownKind: Schemas["ScoreLine"]["kind"] = "no-such-kind";

// --- stored games ------------------------------------------------------------------------------

/** What a table shows of a view, ruleset by ruleset: `ruleset` narrows the union. */
export function describe(view: View): string {
  const hand: string[] | null = view.hand;
  const mine = hand === null ? "spectator" : `${hand.length} cards`;
  switch (view.ruleset) {
    case "numwars": {
      const known = view.roles.filter((role) => role !== null).length;
      const last = view.tricks.at(-1);
      const bomb = last?.result.bomb?.outcome ?? "no bomb";
      return `${mine}, ${known} roles known, last trick led by ${last?.leader}, ${bomb}`;
    }
    case "numwars-classic": {
      const last = view.tricks.at(-1);
      return `${mine}, trick ${last?.number}: ${last?.captures.map((c) => c.seat).join(",")}`;
    }
    case "numking": {
      // the phase and the legal actions are numking's own once `ruleset` narrowed the view
      const phase: "bid" | "play" | "over" = view.phase;
      const kinds: ("bid" | "play")[] = (view.legal_actions ?? []).map((a) => a.type);
      return `${mine}, ${phase}, bids ${view.bids.join(",")}, may ${kinds.join("/")}`;
    }
    case "numwin": {
      const pending = view.pending;
      const waiting = pending === null ? "" : `, seat ${pending.seat} aims ${pending.action}`;
      return `${mine}, ${view.draw_pile_count} to draw${waiting}`;
    }
  }
}

export async function act(gameId: string, action: Schemas["Play"] | Schemas["Bid"], token: string) {
  return api.POST("/v1/games/{game_id}/actions", {
    params: { path: { game_id: gameId }, header: { "If-Match": '"0"', "Idempotency-Key": "k-1" } },
    headers: bearer(token),
    body: action,
  });
}

export async function games(session: string): Promise<string[]> {
  const out: string[] = [];
  const created = await api.POST("/v1/games", {
    body: {
      ruleset: "numwars",
      players: [{ name: "Ada" }, { name: "Bo" }, { name: "Cy", account: "cy_l" }],
      options: { exchange: 2 },
    },
  });
  await api.POST("/v1/games", {
    headers: bearer(session),
    body: { ruleset: "numking", players: [{ name: "Ada" }, { name: "Bo" }], options: { zeros: true } },
  });
  await api.POST("/v1/games", {
    headers: bearer(session),
    // @ts-expect-error: `exchange` is a numwars option, not a numwin one
    body: { ruleset: "numwin", players: [{ name: "Ada" }, { name: "Bo" }], options: { exchange: 2 } },
  });
  if (!created.data) return out;
  const game = created.data;
  const ruleset: "numwars" | "numwars-classic" | "numking" | "numwin" = game.ruleset;
  const token = game.seats[0]?.token ?? "";
  out.push(ruleset, describe(game.view));

  const read = await api.GET("/v1/games/{game_id}", {
    params: { path: { game_id: game.id } },
    headers: bearer(token),
  });
  if (read.data) {
    const view = read.data.view;
    out.push(describe(view));
    const first = view.legal_actions?.[0];
    if (first !== undefined) {
      const acted = await api.POST("/v1/games/{game_id}/actions", {
        params: { path: { game_id: game.id } },
        headers: bearer(token),
        body: first,
      });
      if (acted.data) out.push(describe(acted.data.view), `${acted.data.events.length}`);
      if (acted.error) out.push(acted.error.code, `${acted.error.legal_actions?.length}`);
    }
  }
  await act(game.id, { type: "bid", tricks: 1 }, token);
  const events = await api.GET("/v1/games/{game_id}/events", {
    params: { path: { game_id: game.id }, query: { after: 0 } },
  });
  for (const event of events.data?.events ?? []) out.push(`${event.seq} ${event.kind}`);
  const ticket = await api.POST("/v1/games/{game_id}/stream-tickets", {
    params: { path: { game_id: game.id } },
    headers: bearer(token),
  });
  await api.GET("/v1/games/{game_id}/stream", {
    params: { path: { game_id: game.id }, query: { ticket: ticket.data?.ticket } },
    parseAs: "stream",
  });
  await api.POST("/v1/games/{game_id}/seats/{seat}/join", {
    params: { path: { game_id: game.id, seat: 2 } },
    headers: bearer(session),
  });
  const abandoned = await api.POST("/v1/games/{game_id}/abandon", {
    params: { path: { game_id: game.id } },
    headers: bearer(token),
  });
  const seed: number | undefined = abandoned.data?.seed;
  const exported = await api.GET("/v1/games/{game_id}/export", {
    params: { path: { game_id: game.id } },
  });
  for (const entry of exported.data?.actions ?? []) out.push(`${entry.seq}: ${entry.action.type}`);
  out.push(`${seed}`);
  return out;
}

// --- accounts, sheets, history, stats, keys ----------------------------------------------------

export async function accounts(): Promise<string> {
  const signed = await api.POST("/v1/accounts", {
    body: {
      pseudo: "ada_l",
      password: "a long enough password",
      age_range: "18-24",
      accept_terms: true,
      locale: "fr",
    },
  });
  await api.POST("/v1/email-verifications/confirm", { body: { token: "from-the-email" } });
  const session = await api.POST("/v1/sessions", {
    body: { login: "ada_l", password: "a long enough password" },
  });
  const token = session.data?.token ?? signed.data?.token ?? "";
  const auth = bearer(token);
  const me = await api.GET("/v1/me", { headers: auth });
  const email: string | null | undefined = me.data?.email;
  await api.PATCH("/v1/me", { headers: auth, body: { locale: "en" } });
  await api.POST("/v1/me/password", {
    headers: auth,
    body: { current: "a long enough password", new: "another long password" },
  });
  await api.POST("/v1/password-resets", { body: { login: "ada_l" } });
  await api.POST("/v1/password-resets/confirm", {
    body: { token: "from-the-email", password: "a third long password" },
  });
  const key = await api.POST("/v1/me/api-keys", { headers: auth, body: { name: "checker" } });
  const keys = await api.GET("/v1/me/api-keys", { headers: auth });
  for (const listed of keys.data?.items ?? []) {
    await api.DELETE("/v1/me/api-keys/{key_id}", {
      params: { path: { key_id: listed.id } },
      headers: auth,
    });
  }
  await sheets(token);
  const history = await api.GET("/v1/me/history", { headers: auth, params: { query: { limit: 10 } } });
  const stats = await api.GET("/v1/me/stats", { headers: auth });
  await api.DELETE("/v1/sessions/current", { headers: auth });
  await api.DELETE("/v1/me", { headers: auth });
  const played = Object.keys(stats.data?.rulesets ?? {}).length;
  return `${email} ${key.data?.key} ${history.data?.items.length} ${played}`;
}

export async function sheets(session: string): Promise<number> {
  const created = await api.POST("/v1/scoresheets", {
    params: { header: { "Idempotency-Key": "sheet-1" } },
    body: {
      ruleset: "numwars-classic",
      players: [{ name: "Ada" }, { name: "Bo" }, { name: "Cy" }],
      options: { alliance: false },
    },
  });
  await api.POST("/v1/scoresheets", {
    headers: bearer(session),
    body: { ruleset: "numking", players: [{ name: "Ada" }, { name: "Bo" }], planned_rounds: 5 },
  });
  await api.POST("/v1/scoresheets", {
    headers: bearer(session),
    // @ts-expect-error: `alliance` is a numwars-classic option, not a numking one
    body: { ruleset: "numking", players: [{ name: "Ada" }], options: { alliance: true } },
  });
  const sheet = created.data;
  if (!sheet) return 0;
  const editor = bearer(sheet.token ?? session);
  const path = { sheet_id: sheet.id };
  const round = await api.POST("/v1/scoresheets/{sheet_id}/rounds", {
    params: { path },
    headers: editor,
    body: { players: [{ captured: ["red-3"] }, { captured: [] }, { captured: ["joker"] }] },
  });
  await api.PUT("/v1/scoresheets/{sheet_id}/rounds/{n}", {
    params: { path: { ...path, n: 1 }, header: { "If-Match": `"${round.data?.version}"` } },
    headers: editor,
    body: { players: [{ captured: ["red-3"] }, { captured: [] }, { captured: ["joker"] }], dealer: 0 },
  });
  await api.PATCH("/v1/scoresheets/{sheet_id}", {
    params: { path },
    headers: editor,
    body: { planned_rounds: 4 },
  });
  const read = await api.GET("/v1/scoresheets/{sheet_id}", { params: { path }, headers: editor });
  let total = 0;
  for (const stored of read.data?.rounds ?? []) {
    const input = stored.input;
    if ("bomb_outcome" in input) total += input.players.filter((p) => p.role === "poseur").length;
    else if ("cards" in input) total += input.cards;
    else total += input.players.length;
  }
  await api.DELETE("/v1/scoresheets/{sheet_id}/rounds/{n}", {
    params: { path: { ...path, n: 1 }, header: { "If-Match": '"3"' } },
    headers: editor,
  });
  await api.POST("/v1/scoresheets/{sheet_id}/claim", {
    params: { path },
    headers: bearer(session),
    body: { token: sheet.token ?? "", player: 0 },
  });
  const shared = await api.POST("/v1/scoresheets/{sheet_id}/shares", {
    params: { path },
    headers: bearer(session),
    body: { player: 1, account: "bobby" },
  });
  total += shared.data?.players.filter((p) => p.account !== null).length ?? 0;
  await api.POST("/v1/scoresheets/{sheet_id}/confirm", { params: { path }, headers: bearer(session) });
  await api.DELETE("/v1/scoresheets/{sheet_id}", {
    params: { path, header: { "If-Match": '"5"' } },
    headers: bearer(session),
  });
  return total + (read.data?.totals.reduce((a, b) => a + b, 0) ?? 0);
}


// --- problem codes: a closed set per operation and status ----------------------------------

type Problems<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];
type SignUpConflict =
  Problems<"/v1/accounts", "post">["responses"][409]["content"]["application/problem+json"];
type ActionRefused =
  Problems<"/v1/games/{game_id}/actions", "post">["responses"][422]["content"]["application/problem+json"];

// Which field a sign-up conflict is about. The switch names every code the spec lists for this
// answer: the `never` of the default branch compiles only while it does (a code added to the
// enum fails here until it is handled). At run time a code the server added later reaches the
// default branch, which a client always keeps (codes are open to additions).
export function conflictField(problem: SignUpConflict): string {
  switch (problem.code) {
    case "pseudo-taken":
      return "pseudo";
    case "email-taken":
      return "email";
    default: {
      const unhandled: never = problem.code;
      return `unknown conflict ${String(unhandled)}`;
    }
  }
}

// @ts-expect-error: `game-over` is no code of a sign-up conflict
export const notAConflict: SignUpConflict["code"] = "game-over";

// An illegal move's `reason` is one of the contract's reason codes.
export function moveReason(problem: ActionRefused): string {
  const reason:
    | "card-not-in-hand"
    | "special-lead"
    | "must-follow-color"
    | "must-play-trump"
    | "must-raise"
    | "must-beat"
    | "bad-bid"
    | "role-card-locked"
    | "combination-full"
    | "card-locked"
    | "cannot-call"
    | "not-your-decision"
    | null
    | undefined = problem.reason;
  return problem.code === "illegal-move" ? `${reason}` : problem.code;
}
