// The app's one way to the service: openapi-fetch over the types openapi-typescript generates
// from the committed spec (schema.d.ts, `npm run generate`), so a spec change that breaks the
// app fails `tsc`. Every call says the app's language (`Accept-Language`): problems and score
// labels come back in it.

import createClient from "openapi-fetch";
import type { components, paths } from "../schema";
import type { Lang } from "./i18n";

export type Schemas = components["schemas"];
export type RoundScore = Schemas["RoundScore"];
export type Sheet = Schemas["SheetOut"];
export type NumWarsRound = Schemas["NumWarsScoreRequest"];
export type Role = Schemas["NumWarsPileInput"]["role"];
export type BombOutcome = NumWarsRound["bomb_outcome"];
export type AgeRange = Schemas["SignUp"]["age_range"];

let language: Lang = "fr";

export function setApiLanguage(lang: Lang): void {
  language = lang;
}

export const api = createClient<paths>({ baseUrl: location.origin });
api.use({
  onRequest({ request }) {
    request.headers.set("Accept-Language", language);
    return request;
  },
});

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A sheet's version as `If-Match` wants it (the `ETag` of its reads and writes). */
export const ifMatch = (version: number) => `"${version}"`;

// -- a session the service no longer knows (logged out elsewhere, password changed, expired) --

let sessionLost: (() => void) | null = null;

/** `listener` runs when a request sent with the stored session's token answers 401: the app
 * forgets that session and asks to log in again, wherever the request came from. */
export function onSessionLost(listener: () => void): void {
  sessionLost = listener;
}

api.use({
  onResponse({ request, response }) {
    if (response.status !== 401) return response;
    const sent = request.headers.get("Authorization");
    const session = loadSession();
    // a sheet's own token refused is not the session's: only the session's token counts
    if (!session || sent !== `Bearer ${session.token}`) return response;
    // a live session may be refused where it holds no right (a game whose seats it did not
    // join): only `/v1/me` refusing it too says it ended (that answer comes back here)
    if (new URL(request.url).pathname === "/v1/me") sessionLost?.();
    else void api.GET("/v1/me", { headers: bearer(session.token) }).catch(() => undefined);
    return response;
  },
});

/** A refusal as the app shows it: each field's message by field name, and the detail. */
export interface Refusal {
  detail: string;
  fields: Record<string, string>;
  /** The problem's stable `code` (`player-bound` …), when the API sent one. */
  code?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** The RFC 9457 problem `error` (any operation's error body), or the network's failure. */
export function refusal(error: unknown, fallback: string): Refusal {
  if (!isRecord(error)) return { detail: fallback, fields: {} };
  const fields: Record<string, string> = {};
  const errors = error["errors"];
  if (Array.isArray(errors)) {
    for (const entry of errors) {
      if (!isRecord(entry)) continue;
      const field = entry["field"];
      const message = entry["message"];
      if (typeof field === "string" && typeof message === "string") {
        fields[field] = fields[field] ? `${fields[field]}; ${message}` : message;
      }
    }
  }
  const detail = error["detail"];
  const title = error["title"];
  const text = typeof detail === "string" ? detail : typeof title === "string" ? title : fallback;
  const code = error["code"];
  return typeof code === "string" ? { detail: text, fields, code } : { detail: text, fields };
}

// -- what the device remembers: the session, and the tokens of sheets made without one ---------

const SESSION = "numrules.session";
const SHEETS = "numrules.sheets";

export interface Session {
  token: string;
  pseudo: string;
}

export function loadSession(): Session | null {
  const raw = localStorage.getItem(SESSION);
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isRecord(parsed) && typeof parsed["token"] === "string" && typeof parsed["pseudo"] === "string") {
      return { token: parsed["token"], pseudo: parsed["pseudo"] };
    }
  } catch {
    // a damaged entry is dropped below
  }
  localStorage.removeItem(SESSION);
  return null;
}

export function saveSession(session: Session | null): void {
  if (session) localStorage.setItem(SESSION, JSON.stringify(session));
  else localStorage.removeItem(SESSION);
}

function sheetTokens(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(SHEETS) ?? "{}");
    const tokens: Record<string, string> = {};
    if (isRecord(parsed)) {
      for (const [id, token] of Object.entries(parsed)) {
        if (typeof token === "string") tokens[id] = token;
      }
    }
    return tokens;
  } catch {
    return {};
  }
}

export function sheetToken(id: string): string | undefined {
  return sheetTokens()[id];
}

export function saveSheetToken(id: string, token: string): void {
  localStorage.setItem(SHEETS, JSON.stringify({ ...sheetTokens(), [id]: token }));
}

/** The ids of the sheets made on this device without an account (their tokens kept here). */
export function deviceSheets(): string[] {
  return Object.keys(sheetTokens());
}

/** The sheet's token is no longer needed (claimed by an account) or no longer works. */
export function forgetSheetToken(id: string): void {
  const { [id]: _gone, ...others } = sheetTokens();
  localStorage.setItem(SHEETS, JSON.stringify(others));
}
