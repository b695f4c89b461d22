// Score sheets: "Nouvelle feuille de score" (the ruleset, players within its range, planned
// rounds, its options, the first dealer; 🔒 the community games need an account), then the
// sheet: "Manche N" of its ruleset (each ruleset's entry in its own file, entry.tsx the pieces
// they share), the dealer rotating from round to round, and the totals, leader and winners as
// the API settles them (the lowest total wins where the ruleset says so).

import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { clearDraft, draftKey } from "./draft";
import {
  type Refusal,
  type Schemas,
  type Session,
  type Sheet,
  api,
  bearer,
  forgetSheetToken,
  refusal,
  saveSheetToken,
  sheetToken,
} from "./api";
import { CLASSIC } from "./classic";
import { FrameNotice, type OptionSpec, type OptionValues, type SheetRuleset, useOnline } from "./entry";
import type { Texts } from "./i18n";
import { NUMKING } from "./numking";
import { NUMWARS } from "./numwars-round";
import { NUMWIN } from "./numwin";
import { RoundList, ScoreChart, useCorrections } from "./rounds";
import { ClaimForm, ConfirmPanel, SharePanel, isMe } from "./share";
import type { RulesetId } from "./rules";
import { Field, Heading, Link, type Navigate, Problem, ScrollCue, useRequest } from "./ui";

type RulesetInfo = Schemas["RulesetInfo"];

/** Each ruleset's sheet: its options, its create body, its round entry. */
export const SHEETS: Record<RulesetId, SheetRuleset> = {
  numwars: NUMWARS,
  "numwars-classic": CLASSIC,
  numking: NUMKING,
  numwin: NUMWIN,
};

// -- the catalogue (names in the app's language, player ranges, options, the community lock) --

const catalogues = new Map<Texts, RulesetInfo[]>();

export function useCatalogue(t: Texts): { rulesets: RulesetInfo[] | null; problem: Refusal | null } {
  const [rulesets, setRulesets] = useState<RulesetInfo[] | null>(catalogues.get(t) ?? null);
  const [problem, setProblem] = useState<Refusal | null>(null);
  useEffect(() => {
    const known = catalogues.get(t);
    if (known) {
      setRulesets(known);
      return;
    }
    api
      .GET("/v1/rulesets")
      .then(({ data, error }) => {
        if (data) {
          catalogues.set(t, data.rulesets);
          setRulesets(data.rulesets);
        } else setProblem(refusal(error, t.networkError));
      })
      .catch(() => setProblem({ detail: t.networkError, fields: {} }));
  }, [t]);
  return { rulesets, problem };
}

/** The option values the catalogue gives as defaults (a value of another type: none). */
export function defaults(info: RulesetInfo, specs: readonly OptionSpec[]): OptionValues {
  const values: OptionValues = {};
  for (const spec of specs) {
    const value = info.options[spec.name];
    values[spec.name] =
      spec.kind === "flag" ? value === true : typeof value === "number" ? value : null;
  }
  return values;
}

// -- who deals first (the sheet's later dealers follow its rounds) ------------------------------

const DEALERS = "numrules.dealers";

function firstDealers(): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(DEALERS) ?? "{}");
    const found: Record<string, number> = {};
    if (typeof parsed === "object" && parsed !== null) {
      for (const [id, seat] of Object.entries(parsed)) if (typeof seat === "number") found[id] = seat;
    }
    return found;
  } catch {
    return {};
  }
}

function saveFirstDealer(id: string, seat: number): void {
  localStorage.setItem(DEALERS, JSON.stringify({ ...firstDealers(), [id]: seat }));
}

// -- "Nouvelle feuille de score" ----------------------------------------------------------------

export function NewSheet({ t, navigate, session }: { t: Texts; navigate: Navigate; session: Session | null }) {
  const { rulesets, problem: unread } = useCatalogue(t);
  const [chosen, setChosen] = useState<RulesetId>("numwars");
  const [names, setNames] = useState<string[]>([session?.pseudo ?? "", "", ""]);
  const [planned, setPlanned] = useState<string>("");
  const [values, setValues] = useState<OptionValues | null>(null);
  const [dealer, setDealer] = useState(0);
  // the account's own player ("C'est moi"), whatever its name: player 1 by default
  const [me, setMe] = useState<number | null>(session ? 0 : null);
  const { problem, setProblem, busy, send } = useRequest(t.networkError);
  const info = rulesets?.find((r) => r.id === chosen) ?? null;
  const sheet = SHEETS[chosen];
  const locked = (r: RulesetInfo) => r.community && !session;
  const options = values ?? (info ? defaults(info, sheet.options) : {});
  const least = info?.players.min ?? 3;
  const most = info?.players.max ?? 8;

  const [placeholder, setPlaceholder] = useState<number | null>(null);
  const optionsKey = JSON.stringify(options);
  useEffect(() => {
    let current = true;
    sheet
      .defaultRounds(names.length, options)
      .then((rounds) => current && setPlaceholder(rounds))
      .catch(() => current && setPlaceholder(null));
    return () => {
      current = false;
    };
  }, [chosen, names.length, optionsKey]);

  function choose(id: RulesetId) {
    const next = rulesets?.find((r) => r.id === id);
    if (!next || locked(next)) return;
    setChosen(id);
    setValues(defaults(next, SHEETS[id].options));
    setProblem(null);
    setNames((old) => {
      const kept = old.slice(0, next.players.max);
      while (kept.length < next.players.min) kept.push("");
      return kept;
    });
    setDealer((old) => (old < next.players.max ? old : 0));
    setMe((old) => (old !== null && old < next.players.max ? old : null));
  }

  async function submit(event: Event) {
    event.preventDefault();
    if (!info || locked(info)) return;
    const sent = names.map((_, i) => playerNameOf(t, names, i));
    if (refuseTakenNames(t, sent, setProblem)) return;
    const players = sent.map((name, i) => ({
      name,
      // the player the account said it is ("C'est moi"): the sheet is in its history and stats
      ...(session && i === me ? { account: session.pseudo } : {}),
    }));
    const rounds = planned.trim() === "" ? null : Number(planned);
    await send(async () => {
      const { data, error } = await api.POST("/v1/scoresheets", {
        body: { ruleset: chosen, players, planned_rounds: rounds, options: sheet.optionsOf(options) },
        headers: session ? bearer(session.token) : {},
      });
      if (!data) {
        setProblem(refusal(error, t.networkError));
        return;
      }
      if (data.token) saveSheetToken(data.id, data.token);
      saveFirstDealer(data.id, Math.min(dealer, names.length - 1));
      navigate(`/feuilles/${data.id}`);
    });
  }

  const fields = problem?.fields ?? {};
  const optionFields = sheet.options.map((spec) => `options.${spec.name}`);
  const anyLocked = rulesets?.some(locked) ?? false;
  return (
    <section>
      <Heading>{t.newSheet}</Heading>
      <Problem refusal={unread} shown={[]} />
      <form onSubmit={submit} noValidate>
        <fieldset>
          <legend>{t.ruleset}</legend>
          {(rulesets ?? []).map((r) => (
            <div class="field check" key={r.id}>
              <input
                id={`ruleset-${r.id}`}
                type="radio"
                name="ruleset"
                value={r.id}
                checked={r.id === chosen}
                disabled={locked(r)}
                onChange={() => choose(r.id)}
              />
              <label for={`ruleset-${r.id}`}>{locked(r) ? t.lockedName(r.name) : r.name}</label>
            </div>
          ))}
          {anyLocked ? (
            <p class="notice">
              {t.community}{" "}
              <Link href="/inscription" navigate={navigate}>
                {t.createAccount}
              </Link>{" "}
              ·{" "}
              <Link href="/connexion" navigate={navigate}>
                {t.login}
              </Link>
            </p>
          ) : null}
          {info?.lowest_wins ? <p class="muted">{t.lowestWins}</p> : null}
        </fieldset>
        <PlayerNames
          t={t}
          names={names}
          least={least}
          most={most}
          fields={fields}
          onRename={(i, value) => setNames((all) => all.map((old, j) => (j === i ? value : old)))}
          onRemove={(i) => {
            setNames((all) => all.filter((_, j) => j !== i));
            setDealer((old) => (old < names.length - 1 ? old : 0));
            setMe((old) => (old === null || old < i ? old : old === i ? null : old - 1));
          }}
          onAdd={() => setNames((all) => [...all, ""])}
          beside={(name, i) =>
            session ? (
              <div class="me">
                <input id={`me-${i}`} type="radio" name="me" checked={me === i} onChange={() => setMe(i)} />
                <label for={`me-${i}`}>
                  {t.itsMe}
                  <span class="sr-only">{t.itsMeOf(name.trim() || t.playerName(i + 1))}</span>
                </label>
              </div>
            ) : null
          }
          after={
            session ? (
              <div class="field check">
                <input id="me-none" type="radio" name="me" checked={me === null} onChange={() => setMe(null)} />
                <label for="me-none">{t.notMe}</label>
              </div>
            ) : null
          }
        />
        <Field label={t.firstDealer}>
          {(p) => (
            <select {...p} value={String(dealer)} onChange={(e) => setDealer(Number(e.currentTarget.value))}>
              {names.map((name, i) => (
                <option key={i} value={String(i)}>
                  {name.trim() || t.playerName(i + 1)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t.plannedRounds} error={fields["planned_rounds"]}>
          {(p) => (
            <input
              {...p}
              type="number"
              inputMode="numeric"
              min={1}
              max={100}
              placeholder={placeholder === null ? undefined : String(placeholder)}
              value={planned}
              onInput={(e) => setPlanned(e.currentTarget.value)}
            />
          )}
        </Field>
        <OptionsFieldset t={t} specs={sheet.options} values={options} fields={fields} onChange={setValues} />
        <Problem
          refusal={problem}
          shown={["planned_rounds", "players", ...optionFields, ...names.map((_, i) => `players[${i}].name`)]}
        />
        <button type="submit" class="primary" disabled={busy || !info}>
          {t.createSheet}
        </button>
      </form>
    </section>
  );
}

/** Player `i`'s name as sent: the one typed, else « Joueur N ». */
export function playerNameOf(t: Texts, names: readonly string[], i: number, blank = t.playerName(i + 1)): string {
  return names[i]?.trim() || blank;
}

/** The names two players would share (as the API compares them: case and spaces aside), each
 * refused under the later player's field (`players[i].name`), in the app's language: a table
 * cannot tell two « Ada » apart in its totals, turns and results. */
export function takenNames(t: Texts, names: readonly string[]): Record<string, string> {
  const seen = new Map<string, number>();
  const fields: Record<string, string> = {};
  names.forEach((name, i) => {
    const key = name.split(/\s+/).filter(Boolean).join(" ").toLocaleLowerCase();
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    // the earlier player's name as written (« Ada », not the later « ana »): the one shown
    else fields[`players[${i}].name`] = t.nameTaken(names[first]?.trim() ?? name, first + 1);
  });
  return fields;
}

/** Refuses a form whose players share a name (`sent`: the names as they will be sent) before
 * any request, the first such field focused; true when it did. */
export function refuseTakenNames(t: Texts, sent: readonly string[], show: (problem: Refusal) => void): boolean {
  const fields = takenNames(t, sent);
  if (Object.keys(fields).length === 0) return false;
  show({ detail: "", fields });
  const first = Object.keys(fields)[0] ?? "";
  const index = Number(/\[(\d+)\]/.exec(first)?.[1] ?? "0");
  requestAnimationFrame(() => document.querySelectorAll<HTMLInputElement>("input[data-player]")[index]?.focus());
  return true;
}

/** The options of a new sheet or a new online game: one checkbox or number per option the
 * ruleset offers (its API refusal under it); nothing when it offers none. */
export function OptionsFieldset({
  t,
  specs,
  values,
  fields,
  onChange,
}: {
  t: Texts;
  specs: readonly OptionSpec[];
  values: OptionValues;
  fields: Record<string, string>;
  onChange: (values: OptionValues) => void;
}) {
  if (specs.length === 0) return null;
  return (
    <fieldset>
      <legend>{t.options}</legend>
      {specs.map((spec) => (
        <OptionField
          key={spec.name}
          t={t}
          spec={spec}
          value={values[spec.name] ?? null}
          error={fields[`options.${spec.name}`]}
          onChange={(value) => onChange({ ...values, [spec.name]: value })}
        />
      ))}
    </fieldset>
  );
}

/** The players' names of a new sheet or game: one field each (its API refusal under it),
 * `beside` each (the sheet's « C'est moi »), remove while above `least`, add while under
 * `most`, `after` the list. */
export function PlayerNames({
  t,
  names,
  least,
  most,
  fields,
  onRename,
  onRemove,
  onAdd,
  beside,
  after,
}: {
  t: Texts;
  names: string[];
  least: number;
  most: number;
  fields: Record<string, string>;
  onRename: (i: number, name: string) => void;
  onRemove: (i: number) => void;
  onAdd: () => void;
  beside?: (name: string, i: number) => JSX.Element | null;
  after?: JSX.Element | null;
}) {
  return (
    <fieldset>
      <legend>{t.players}</legend>
      <p class="muted">{t.playerRange(least, most)}</p>
      {names.map((name, i) => (
        <div class="row" key={i}>
          <Field label={t.playerName(i + 1)} error={fields[`players[${i}].name`]}>
            {(p) => (
              <input
                {...p}
                data-player={i}
                value={name}
                autocomplete="off"
                onInput={(e) => onRename(i, e.currentTarget.value)}
              />
            )}
          </Field>
          {beside ? beside(name, i) : null}
          {names.length > least ? (
            <button
              type="button"
              class="small"
              aria-label={t.removePlayer(name || t.playerName(i + 1))}
              onClick={() => onRemove(i)}
            >
              ×
            </button>
          ) : null}
        </div>
      ))}
      {after ?? null}
      {names.length < most ? (
        <button type="button" onClick={onAdd}>
          {t.addPlayer}
        </button>
      ) : null}
      {fields["players"] ? <p class="field-error">{fields["players"]}</p> : null}
    </fieldset>
  );
}

export function OptionField({
  t,
  spec,
  value,
  error,
  onChange,
}: {
  t: Texts;
  spec: OptionSpec;
  value: boolean | number | null;
  error: string | undefined;
  onChange: (value: boolean | number | null) => void;
}) {
  const id = `option-${spec.name}`;
  if (spec.kind === "flag") {
    return (
      <div class="field check">
        <input
          id={id}
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
          aria-describedby={error ? `${id}-error` : undefined}
          aria-invalid={error ? true : undefined}
        />
        <label for={id}>{t.optionNames[spec.name]}</label>
        {error ? (
          <p class="field-error" id={`${id}-error`}>
            {error}
          </p>
        ) : null}
      </div>
    );
  }
  return (
    <Field label={t.optionNames[spec.name]} error={error}>
      {(p) => (
        <input
          {...p}
          type="number"
          inputMode="numeric"
          min={spec.min}
          max={spec.max}
          value={typeof value === "number" ? String(value) : ""}
          onInput={(e) => {
            const text = e.currentTarget.value.trim();
            onChange(text === "" ? null : Number(text));
          }}
        />
      )}
    </Field>
  );
}

// -- the sheet ----------------------------------------------------------------------------------------

function credential(id: string, session: Session | null): string | undefined {
  return sheetToken(id) ?? session?.token;
}

export function SheetScreen({ t, id, session }: { t: Texts; id: string; session: Session | null }) {
  const [sheet, setSheet] = useState<Sheet | null>(null);
  const [problem, setProblem] = useState<Refusal | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const { rulesets } = useCatalogue(t);
  const token = credential(id, session);

  async function load(): Promise<Sheet | null> {
    const current = credential(id, session);
    if (!current) return null;
    try {
      const { data, error, response } = await api.GET("/v1/scoresheets/{sheet_id}", {
        params: { path: { sheet_id: id } },
        headers: bearer(current),
      });
      if (data) setSheet(data);
      else if (response.status === 401 && session && current === sheetToken(id)) {
        // the device's token ended (the sheet was claimed): the account's session reads it
        forgetSheetToken(id);
        return await load();
      } else setProblem(refusal(error, t.networkError));
      return data ?? null;
    } catch {
      setProblem({ detail: t.networkError, fields: {} });
      return null;
    }
  }
  const fix = useCorrections(t, id, token, sheet, load);
  // a correction started: the last save's « Manche N enregistrée » no longer applies
  useEffect(() => {
    if (fix.editing) setSaved(null);
  }, [fix.editing]);

  // loaded again when the network comes back: a sheet opened offline does not stay on « Erreur »
  const back = useOnline();
  useEffect(() => {
    if (back > 0 && sheet !== null && problem === null) return;
    setProblem(null);
    void load();
  }, [id, t, back]);

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
  const last = sheet.rounds[sheet.rounds.length - 1] ?? null;
  const dealer = last ? (last.dealer + 1) % names.length : Math.min(firstDealers()[id] ?? 0, names.length - 1);
  const Entry = SHEETS[sheet.ruleset].Entry;
  const info = rulesets?.find((r) => r.id === sheet.ruleset) ?? null;
  // sharing and claims (share.tsx): a sheet this device made is offered to the account logged
  // in; its editor shares it; an account it names (not its owner) confirms it, and only reads
  const device = sheetToken(id);
  const editor = !!device || isMe(sheet.owner, session);
  const canChange = editor;
  const named = !editor && !!session && sheet.players.some((player) => isMe(player.account, session));
  const title = <SheetTitle t={t} sheet={sheet} info={info} />;
  if (named && session) {
    return (
      <>
        {title}
        <section>
          <Heading level={2}>{t.sharedSheet}</Heading>
          <ConfirmPanel t={t} sheet={sheet} session={session} onSheet={setSheet} />
        </section>
        <Totals t={t} sheet={sheet} info={info} />
      </>
    );
  }
  // the last news (a round saved, corrected or deleted) is said under the heading that takes the focus
  const news = fix.notice ?? saved;
  return (
    <FrameNotice.Provider value={news}>
      {title}
      {fix.editing ? (
        <Entry
          key={`fix-${fix.editing.round.n}`}
          t={t}
          n={fix.editing.round.n}
          names={names}
          dealer={fix.editing.round.dealer}
          tiebreak={fix.editing.round.n > sheet.planned_rounds}
          previous={sheet.rounds[fix.editing.round.n - 2] ?? null}
          options={sheet.options}
          correction={{ round: fix.editing.round, onCancel: fix.cancel }}
          save={fix.save}
        />
      ) : sheet.finished ? (
        <section>
          <Heading level={2}>{t.totals}</Heading>
          {news ? (
            <p role="status" class="notice">
              {news}
            </p>
          ) : null}
        </section>
      ) : (
        <Entry
          key={next}
          t={t}
          n={next}
          names={names}
          dealer={dealer}
          tiebreak={sheet.rounds.length >= sheet.planned_rounds}
          previous={last}
          options={sheet.options}
          keep={draftKey(id, next)}
          save={async (body) => {
            const { data, error } = await api.POST("/v1/scoresheets/{sheet_id}/rounds", {
              params: { path: { sheet_id: id } },
              headers: bearer(token),
              body: { ...body, dealer },
            });
            if (!data) return refusal(error, t.networkError);
            clearDraft(id, next);
            fix.clearNotice();
            setSaved(t.saved(data.n));
            await load();
            return null;
          }}
        />
      )}
      <Totals t={t} sheet={sheet} info={info} />
      <RoundList t={t} sheet={sheet} fix={fix} canChange={canChange} />
      {device && session ? (
        <ClaimForm t={t} sheet={sheet} token={device} session={session} onClaimed={setSheet} />
      ) : null}
      {editor && token ? <SharePanel t={t} sheet={sheet} credential={token} onSheet={setSheet} /> : null}
    </FrameNotice.Provider>
  );
}

/** The sheet's title: its ruleset and players, the day it was made (the round entry's own
 * heading, under it, takes the focus: what is to be done now). */
function SheetTitle({ t, sheet, info }: { t: Texts; sheet: Sheet; info: RulesetInfo | null }) {
  const ruleset = info?.name ?? { ...t.gameRulesets, ...t.gameRulesetsMore }[sheet.ruleset];
  const day = new Date(sheet.created_at).toLocaleDateString(t.dateLocale, { dateStyle: "long" });
  return (
    <header class="sheet-title">
      <h1>{t.sheetTitle(ruleset, sheet.players.map((player) => player.name).join(", "))}</h1>
      <p class="muted">{t.sheetDate(day)}</p>
    </header>
  );
}

/** The running totals (each round's winners named once, in the row under the rounds;
 * tie-break rounds shown, never added),
 * the teams' totals, the leader and, once the match is over, its winners: all as the API
 * settles them. */
function Totals({ t, sheet, info }: { t: Texts; sheet: Sheet; info: RulesetInfo | null }) {
  const names = sheet.players.map((player) => player.name);
  const who = (seats: readonly number[]) => seats.map((seat) => names[seat] ?? "").join(", ");
  return (
    <section aria-labelledby="totals-title" class="totals">
      <h2 id="totals-title">{sheet.finished ? t.winner(who(sheet.winners)) : t.totals}</h2>
      {/* the ruleset is in the sheet's title; what it changes to the totals is said here */}
      {info?.lowest_wins ? <p>{t.lowestWins}</p> : null}
      <p>{t.roundsDone(Math.min(sheet.rounds.length, sheet.planned_rounds), sheet.planned_rounds)}</p>
      {sheet.leader !== null && !sheet.finished ? <p class="leader">{t.leader(names[sheet.leader] ?? "")}</p> : null}
      {!sheet.finished && sheet.rounds.length >= sheet.planned_rounds ? <p>{t.fixTiebreakNeeded}</p> : null}
      {/* a wide table scrolls sideways on a phone: the keyboard can scroll it too */}
      <div class="scroll" tabIndex={0} role="region" aria-labelledby="totals-title">
        <table>
          <thead>
            <tr>
              <th scope="col">{t.player}</th>
              {/* the total right after the name: always in sight on a phone, however many rounds */}
              <th scope="col">{t.total}</th>
              {sheet.rounds.map((round) => (
                <th scope="col" key={round.n}>
                  {round.n > sheet.planned_rounds ? t.tiebreakColumn(round.n) : t.round(round.n)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {names.map((name, seat) => (
              <tr key={seat}>
                <th scope="row">{name}</th>
                <td class="total" data-seat={seat}>
                  {sheet.totals[seat] ?? 0}
                </td>
                {sheet.rounds.map((round) => (
                  <td key={round.n}>{round.scores.players.find((p) => p.seat === seat)?.score ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
          {sheet.rounds.length > 0 ? (
            <tfoot>
              <tr>
                <th scope="row">{t.fixRoundWinners}</th>
                <td />
                {sheet.rounds.map((round) => (
                  <td key={round.n} class="round-winner">
                    {who(round.scores.winners)}
                  </td>
                ))}
              </tr>
            </tfoot>
          ) : null}
        </table>
      </div>
      <ScrollCue text={t.scrollCue} />
      <ScoreChart t={t} sheet={sheet} />
      {sheet.teams && sheet.teams.length > 0 ? (
        <ul class="team-totals">
          {sheet.teams.map((team, i) => (
            <li key={i} data-team={i}>
              {t.scoreOf(t.team(team.seats.map((seat) => names[seat] ?? "")), team.score)}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
