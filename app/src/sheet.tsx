// Num Wars score sheets: "Nouvelle feuille de score" (players' names, planned rounds), then
// "Manche N": each player's captured cards by "TYPE DE CARTE", trump pairs, role, who had the
// Bomb; the breakdown and score shown live from `score-round` before the round is saved; the
// totals and the leader.

import { useEffect, useId, useRef, useState } from "preact/hooks";
import {
  type Refusal,
  type Role,
  type RoundScore,
  type Session,
  type Sheet,
  api,
  bearer,
  forgetSheetToken,
  refusal,
  saveSheetToken,
  sheetToken,
} from "./api";
import type { Texts } from "./i18n";
import {
  CARD_TYPES,
  type CardType,
  type Entry,
  KEPT_WAYS,
  type RoundDraft,
  VALUED,
  emptyDraft,
  left,
  maxValue,
  roundBody,
  tableRoles,
} from "./numwars";
import { ClaimForm, ConfirmPanel, SharePanel, isMe } from "./share";
import { Field, Heading, type Navigate, Problem, useRequest } from "./ui";

const MIN_PLAYERS = 3;
const MAX_PLAYERS = 8;

export function NewSheet({ t, navigate, session }: { t: Texts; navigate: Navigate; session: Session | null }) {
  const [names, setNames] = useState<string[]>(["", "", ""]);
  const [planned, setPlanned] = useState<string>("");
  const { problem, setProblem, busy, send } = useRequest(t.networkError);

  async function submit(event: Event) {
    event.preventDefault();
    const rounds = planned === "" ? names.length : Number(planned);
    await send(async () => {
      const { data, error } = await api.POST("/v1/scoresheets", {
        body: {
          ruleset: "numwars",
          players: names.map((name, i) => ({ name: name.trim() || t.playerName(i + 1) })),
          planned_rounds: rounds,
        },
        headers: session ? bearer(session.token) : {},
      });
      if (!data) {
        setProblem(refusal(error, t.networkError));
        return;
      }
      if (data.token) saveSheetToken(data.id, data.token);
      navigate(`/feuilles/${data.id}`);
    });
  }

  const fields = problem?.fields ?? {};
  return (
    <section>
      <Heading>{t.newSheet}</Heading>
      <form onSubmit={submit} noValidate>
        <p>
          {t.ruleset} : <strong>{t.numwars}</strong>
        </p>
        <fieldset>
          <legend>{t.players}</legend>
          {names.map((name, i) => (
            <div class="row" key={i}>
              <Field label={t.playerName(i + 1)} error={fields[`players[${i}].name`]}>
                {(p) => (
                  <input
                    {...p}
                    value={name}
                    autocomplete="off"
                    onInput={(e) => {
                      const value = e.currentTarget.value;
                      setNames((all) => all.map((old, j) => (j === i ? value : old)));
                    }}
                  />
                )}
              </Field>
              {names.length > MIN_PLAYERS ? (
                <button
                  type="button"
                  class="small"
                  aria-label={t.removePlayer(name || t.playerName(i + 1))}
                  onClick={() => setNames((all) => all.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              ) : null}
            </div>
          ))}
          {names.length < MAX_PLAYERS ? (
            <button type="button" onClick={() => setNames((all) => [...all, ""])}>
              {t.addPlayer}
            </button>
          ) : null}
        </fieldset>
        <Field label={t.plannedRounds} error={fields["planned_rounds"]}>
          {(p) => (
            <input
              {...p}
              type="number"
              inputMode="numeric"
              min={1}
              max={100}
              placeholder={String(names.length)}
              value={planned}
              onInput={(e) => setPlanned(e.currentTarget.value)}
            />
          )}
        </Field>
        <Problem refusal={problem} shown={["planned_rounds", ...names.map((_, i) => `players[${i}].name`)]} />
        <button type="submit" class="primary" disabled={busy}>
          {t.createSheet}
        </button>
      </form>
    </section>
  );
}

function credential(id: string, session: Session | null): string | undefined {
  return sheetToken(id) ?? session?.token;
}

export function SheetScreen({ t, id, session }: { t: Texts; id: string; session: Session | null }) {
  const [sheet, setSheet] = useState<Sheet | null>(null);
  const [problem, setProblem] = useState<Refusal | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const token = credential(id, session);

  async function load() {
    const current = credential(id, session);
    if (!current) return;
    try {
      const { data, error, response } = await api.GET("/v1/scoresheets/{sheet_id}", {
        params: { path: { sheet_id: id } },
        headers: bearer(current),
      });
      if (data) setSheet(data);
      else if (response.status === 401 && session && current === sheetToken(id)) {
        // the device's token ended (the sheet was claimed): the account's session reads it
        forgetSheetToken(id);
        await load();
      } else setProblem(refusal(error, t.networkError));
    } catch {
      setProblem({ detail: t.networkError, fields: {} });
    }
  }

  useEffect(() => {
    void load();
  }, [id, t]);

  if (!token) {
    return (
      <section>
        <Heading>{t.newSheet}</Heading>
        <p class="problem">{t.sheetMissing}</p>
      </section>
    );
  }
  if (!sheet) {
    return (
      <section>
        <Heading>{problem ? t.error : t.loading}</Heading>
        <Problem refusal={problem} shown={[]} />
      </section>
    );
  }
  const names = sheet.players.map((player) => player.name);
  const next = sheet.rounds.length + 1;
  // sharing and claims (share.tsx): a sheet this device made is offered to the account logged
  // in; its editor shares it; an account it names (not its owner) confirms it, and only reads
  const device = sheetToken(id);
  const editor = !!device || isMe(sheet.owner, session);
  const named = !editor && !!session && sheet.players.some((player) => isMe(player.account, session));
  const sharing = (
    <>
      {device && session ? (
        <ClaimForm t={t} sheet={sheet} token={device} session={session} onClaimed={setSheet} />
      ) : null}
      {editor && token ? <SharePanel t={t} sheet={sheet} credential={token} onSheet={setSheet} /> : null}
    </>
  );
  if (named && session) {
    return (
      <>
        <section>
          <Heading>{t.sharedSheet}</Heading>
          <ConfirmPanel t={t} sheet={sheet} session={session} onSheet={setSheet} />
        </section>
        <Totals t={t} sheet={sheet} />
      </>
    );
  }
  return (
    <>
      {sheet.finished ? (
        <section>
          <Heading>{t.totals}</Heading>
        </section>
      ) : (
        <RoundEntry
          key={next}
          t={t}
          n={next}
          names={names}
          dealer={sheet.rounds.length % names.length}
          save={async (body) => {
            const { data, error } = await api.POST("/v1/scoresheets/{sheet_id}/rounds", {
              params: { path: { sheet_id: id } },
              headers: bearer(token),
              body,
            });
            if (!data) return refusal(error, t.networkError);
            setSaved(t.saved(data.n));
            await load();
            return null;
          }}
        />
      )}
      {saved ? (
        <p role="status" class="notice">
          {saved}
        </p>
      ) : null}
      <Totals t={t} sheet={sheet} />
      {sharing}
    </>
  );
}

function Totals({ t, sheet }: { t: Texts; sheet: Sheet }) {
  const names = sheet.players.map((player) => player.name);
  const who = (seats: readonly number[]) => seats.map((seat) => names[seat] ?? "").join(", ");
  return (
    <section aria-labelledby="totals-title" class="totals">
      <h2 id="totals-title">{sheet.finished ? t.winner(who(sheet.winners)) : t.totals}</h2>
      <p>{t.roundsDone(sheet.rounds.length, sheet.planned_rounds)}</p>
      {sheet.leader !== null && !sheet.finished ? <p class="leader">{t.leader(names[sheet.leader] ?? "")}</p> : null}
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">{t.player}</th>
              {sheet.rounds.map((round) => (
                <th scope="col" key={round.n}>
                  {t.round(round.n)}
                </th>
              ))}
              <th scope="col">{t.total}</th>
            </tr>
          </thead>
          <tbody>
            {names.map((name, seat) => (
              <tr key={seat}>
                <th scope="row">{name}</th>
                {sheet.rounds.map((round) => (
                  <td key={round.n}>{round.scores.players.find((p) => p.seat === seat)?.score ?? 0}</td>
                ))}
                <td class="total" data-seat={seat}>
                  {sheet.totals[seat] ?? 0}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

type Save = (body: NonNullable<ReturnType<typeof roundBody>>) => Promise<Refusal | null>;

function RoundEntry({ t, n, names, dealer, save }: { t: Texts; n: number; names: string[]; dealer: number; save: Save }) {
  const [draft, setDraft] = useState<RoundDraft>(() => emptyDraft(names.length));
  const [score, setScore] = useState<RoundScore | null>(null);
  const { problem, setProblem, busy, send } = useRequest(t.networkError);
  // the player whose cards are being entered; the others are collapsed to one line each
  const [open, setOpen] = useState<number | null>(0);
  const ids = useId();
  const asked = useRef(0);
  const body = roundBody(draft);
  const bodyKey = JSON.stringify(body);

  useEffect(() => {
    if (!body) {
      setScore(null);
      setProblem(null);
      return;
    }
    const ask = ++asked.current;
    const timer = setTimeout(() => {
      api
        .POST("/v1/rulesets/numwars/score-round", { body })
        .then(({ data, error }) => {
          if (ask !== asked.current) return;
          setScore(data ?? null);
          setProblem(data ? null : refusal(error, t.networkError));
        })
        .catch(() => {
          if (ask === asked.current) setProblem({ detail: t.networkError, fields: {} });
        });
    }, 150);
    return () => clearTimeout(timer);
  }, [bodyKey, t]);

  const update = (change: (draft: RoundDraft) => RoundDraft) => setDraft((old) => change(old));
  const setPlayer = (seat: number, change: (entries: Entry[], role: Role) => { entries: Entry[]; role: Role }) =>
    update((old) => ({
      ...old,
      players: old.players.map((player, i) => (i === seat ? change(player.entries, player.role) : player)),
    }));
  // a role another player holds is swapped with them: the table's roles stay a valid set
  // (one each, civils aside), as the API requires, instead of a refusal after the fact
  const chooseRole = (seat: number, chosen: Role) =>
    update((old) => {
      const before = old.players[seat];
      if (!before || before.role === chosen) return old;
      const other = old.players.findIndex((player, i) => i !== seat && player.role === chosen);
      return {
        ...old,
        players: old.players.map((player, i) =>
          i === seat ? { ...player, role: chosen } : i === other ? { ...player, role: before.role } : player,
        ),
      };
    });
  const holder = draft.bombHolder === null ? undefined : draft.players[draft.bombHolder];
  const roles = [...new Set(tableRoles(names.length))];

  async function submit(event: Event) {
    event.preventDefault();
    if (!body) return;
    await send(async () => {
      const refused = await save(body);
      if (refused) setProblem(refused);
    });
  }

  return (
    <section>
      <Heading>{t.round(n)}</Heading>
      <p>{t.dealer(names[dealer] ?? "")}</p>
      <form onSubmit={submit} noValidate>
        {draft.players.map((player, seat) => (
          <fieldset key={seat} class="player">
            <legend>{names[seat]}</legend>
            <Field label={t.role}>
              {(p) => (
                <select
                  {...p}
                  value={player.role}
                  onChange={(e) => {
                    const chosen = roles.find((role) => role === e.currentTarget.value);
                    if (chosen) chooseRole(seat, chosen);
                  }}
                >
                  {roles.map((role) => (
                    <option key={role} value={role}>
                      {t.roles[role]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <h3 class="small-title">
              <button
                type="button"
                class="disclosure"
                aria-expanded={open === seat}
                aria-controls={`${ids}-cards-${seat}`}
                onClick={() => setOpen(open === seat ? null : seat)}
              >
                {t.capturedToggle(names[seat] ?? "", cardsIn(player.entries))}
              </button>
            </h3>
            {open !== seat ? (
              <p class="muted" id={`${ids}-cards-${seat}`}>
                {player.entries.length === 0 ? t.noCards : player.entries.map((entry) => describe(t, entry)).join(", ")}
              </p>
            ) : (
              <div id={`${ids}-cards-${seat}`}>
              <CardPicker
                t={t}
                draft={draft}
                players={names.length}
                onAdd={(entry) => setPlayer(seat, (entries, role) => ({ entries: [...entries, entry], role }))}
              />
              {player.entries.length === 0 ? (
                <p class="muted">{t.noCards}</p>
              ) : (
                <ul class="cards">
                  {player.entries.map((entry, i) => {
                    const what = describe(t, entry);
                    return (
                      <li key={i}>
                        <span>{what}</span>
                        <button
                          type="button"
                          class="small"
                          aria-label={t.removeCards(what)}
                          onClick={() => setPlayer(seat, (entries, role) => ({ entries: entries.filter((_, j) => j !== i), role }))}
                        >
                          ×
                        </button>
                      </li>
                    );
                  })}
                </ul>
              )}
              </div>
            )}
          </fieldset>
        ))}
        <Field label={t.bombHolder}>
          {(p) => (
            <select
              {...p}
              value={draft.bombHolder === null ? "" : String(draft.bombHolder)}
              onChange={(e) => {
                const value = e.currentTarget.value;
                update((old) => ({ ...old, bombHolder: value === "" ? null : Number(value) }));
              }}
            >
              <option value="">{t.bombChoose}</option>
              {names.map((name, seat) => (
                <option key={seat} value={String(seat)}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {holder?.role === "poseur" ? (
          <Field label={t.bombHow}>
            {(p) => (
              <select
                {...p}
                value={draft.keptWay}
                onChange={(e) => {
                  const way = KEPT_WAYS.find((w) => w === e.currentTarget.value);
                  if (way) update((old) => ({ ...old, keptWay: way }));
                }}
              >
                {KEPT_WAYS.map((way) => (
                  <option key={way} value={way}>
                    {t.bombWays[way]}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
        <section aria-labelledby="live-title" class="live" aria-live="polite">
          <h2 id="live-title">{t.liveScore}</h2>
          {!body ? <p class="muted">{t.chooseBomb}</p> : null}
          {body && score ? (
            <ul class="scores">
              {score.players.map((line) => (
                <li key={line.seat} data-seat={line.seat}>
                  <strong class="score">{t.scoreOf(names[line.seat] ?? "", line.score)}</strong>
                  <ul class="breakdown">
                    {line.breakdown.map((part, i) => (
                      <li key={i}>
                        {t.part(part.label, part.points)}
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          ) : null}
          <Problem refusal={problem} shown={[]} />
        </section>
        <button type="submit" class="primary" disabled={!body || !score || busy}>
          {t.saveRound}
        </button>
      </form>
    </section>
  );
}

/** How many cards the entries hold (a trump pair is two). */
function cardsIn(entries: readonly Entry[]): number {
  return entries.reduce((sum, entry) => sum + (entry.type === "pair" ? 2 : entry.count), 0);
}

function describe(t: Texts, entry: Entry): string {
  switch (entry.type) {
    case "classic":
      return t.classicCards(entry.count, entry.value);
    case "pair":
      return t.pairOf(entry.value);
    case "rainbow":
    case "shadow":
      return `${t.cardTypes[entry.type]} ${entry.value}`;
    default:
      return t.cardTypes[entry.type];
  }
}

function CardPicker({ t, draft, players, onAdd }: { t: Texts; draft: RoundDraft; players: number; onAdd: (entry: Entry) => void }) {
  const [type, setType] = useState<CardType>("classic");
  const [value, setValue] = useState(1);
  const [count, setCount] = useState(1);
  const values = Array.from({ length: maxValue(players) + 1 }, (_, v) => v);
  const available = left(draft, type, value);
  const counts = type === "classic" ? Array.from({ length: available }, (_, i) => i + 1) : [];
  const chosenCount = Math.min(count, Math.max(available, 1));
  return (
    <div class="picker">
      <Field label={t.cardType}>
        {(p) => (
          <select
            {...p}
            value={type}
            onChange={(e) => {
              const chosen = CARD_TYPES.find((c) => c === e.currentTarget.value);
              if (chosen) setType(chosen);
            }}
          >
            {CARD_TYPES.map((c) => (
              <option key={c} value={c}>
                {t.cardTypes[c]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {VALUED.has(type) ? (
        <Field label={t.value}>
          {(p) => (
            <select {...p} value={String(value)} onChange={(e) => setValue(Number(e.currentTarget.value))}>
              {values.map((v) => (
                <option key={v} value={String(v)}>
                  {v}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {type === "classic" && available > 0 ? (
        <Field label={t.count}>
          {(p) => (
            <select {...p} value={String(chosenCount)} onChange={(e) => setCount(Number(e.currentTarget.value))}>
              {counts.map((c) => (
                <option key={c} value={String(c)}>
                  {c}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {available > 0 ? (
        <button type="button" onClick={() => onAdd({ type, value: VALUED.has(type) ? value : 0, count: type === "classic" ? chosenCount : 1 })}>
          {t.addCards}
        </button>
      ) : (
        <p class="muted">{t.noMore}</p>
      )}
    </div>
  );
}
