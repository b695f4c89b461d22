// The shell: the banner (name, menu, language switch), the offline notice, and the screen of
// the current path (the service answers index.html on each of the app's paths, api-contract.md
// "The app's paths"; French and English twins open the same screen).

import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { Created, Forgot, LogIn, Reset, SignUp, Verify, Welcome } from "./account";
import { type Session, api, bearer, loadSession, onSessionLost, saveSession, setApiLanguage } from "./api";
import { History, StatsScreen } from "./history";
import { type Lang, catalogue, initialLang, rememberLang } from "./i18n";
import { AccountScreen } from "./me";
import { GameScreen, NewGame } from "./play";
import { Rules, type RulesetId, rulesetOf } from "./rules";
import { DeviceSheets } from "./share";
import { OpenTables } from "./tables";
import { NewSheet, SheetScreen } from "./sheet";
import { Heading, Link } from "./ui";

type Route =
  | { name: "welcome" }
  | { name: "created" }
  | { name: "signup" }
  | { name: "login" }
  | { name: "forgot" }
  | { name: "reset"; token: string | null }
  | { name: "verify"; token: string | null }
  | { name: "newSheet" }
  | { name: "sheet"; id: string }
  | { name: "rules"; id: RulesetId }
  | { name: "history" }
  | { name: "stats" }
  | { name: "account" }
  | { name: "newGame" }
  | { name: "game"; id: string }
  | { name: "tables" }
  | { name: "notFound" };

export function parse(path: string, search: string): Route {
  const token = new URLSearchParams(search).get("token");
  const clean = path.replace(/\/+$/, "") || "/";
  switch (clean) {
    case "/":
      return { name: "welcome" };
    case "/inscription":
    case "/signup":
      return { name: "signup" };
    case "/connexion":
    case "/login":
      return { name: "login" };
    case "/mot-de-passe":
    case "/password":
      return { name: "forgot" };
    case "/reinitialiser":
    case "/reset-password":
      return { name: "reset", token };
    case "/verifier-email":
    case "/verify-email":
      return { name: "verify", token };
    case "/historique":
    case "/history":
      return { name: "history" };
    case "/stats":
      return { name: "stats" };
    case "/tables":
      return { name: "tables" };
    case "/compte":
    case "/account":
      return { name: "account" };
    case "/feuilles":
    case "/sheets":
    case "/feuilles/nouvelle":
    case "/sheets/new":
      return { name: "newSheet" };
    case "/parties":
    case "/games":
    case "/parties/nouvelle":
    case "/games/new":
      return { name: "newGame" };
  }
  const rules = /^\/(?:regles|rules)\/([a-z-]+)$/.exec(clean);
  const ruleset = rules?.[1] ? rulesetOf(rules[1]) : null;
  if (ruleset) return { name: "rules", id: ruleset };
  const sheet = /^\/(?:feuilles|sheets)\/([0-9a-f]{32})$/.exec(clean);
  if (sheet?.[1]) return { name: "sheet", id: sheet[1] };
  const game = /^\/(?:parties|games)\/([0-9a-f]{32})$/.exec(clean);
  if (game?.[1]) return { name: "game", id: game[1] };
  return { name: "notFound" };
}

export function App() {
  const [lang, setLang] = useState<Lang>(initialLang);
  const [session, setSession] = useState<Session | null>(loadSession);
  const [route, setRoute] = useState<Route>(() => parse(location.pathname, location.search));
  const [online, setOnline] = useState(navigator.onLine);
  // a word for the next screen (the session ended, the account deleted), until the next move
  const [notice, setNotice] = useState<"sessionLost" | "accDeleted" | null>(null);
  // where a lost session was: the log-in goes back there
  const [returnTo, setReturnTo] = useState<string | null>(null);
  const t = catalogue[lang];
  setApiLanguage(lang);

  // at once with the render (a layout effect), so the page never shows one language under the other's `lang`
  useLayoutEffect(() => {
    document.documentElement.lang = lang;
    document.title = t.title;
  }, [lang]);

  useEffect(() => {
    const onPop = () => setRoute(parse(location.pathname, location.search));
    const onOnline = () => setOnline(true);
    const onOffline = () => setOnline(false);
    addEventListener("popstate", onPop);
    addEventListener("online", onOnline);
    addEventListener("offline", onOffline);
    return () => {
      removeEventListener("popstate", onPop);
      removeEventListener("online", onOnline);
      removeEventListener("offline", onOffline);
    };
  }, []);

  const navigate = (path: string, shown?: Route) => {
    history.pushState(null, "", path);
    const url = new URL(path, location.origin);
    setNotice(null);
    setRoute(shown ?? parse(url.pathname, url.search));
  };

  // A request sent with the stored session answered 401 (ended elsewhere, password changed,
  // expired): forget it and ask to log in again, in the app's language, wherever it happened.
  useEffect(() => {
    onSessionLost(() => {
      if (!loadSession()) return;
      saveSession(null);
      setSession(null);
      const here = location.pathname + location.search;
      setReturnTo(parse(location.pathname, location.search).name === "login" ? null : here);
      history.pushState(null, "", "/connexion");
      setRoute({ name: "login" });
      setNotice("sessionLost");
    });
    // the stored session is checked once on opening: a revoked one is not shown as « Connecté »
    const stored = loadSession();
    if (stored) void api.GET("/v1/me", { headers: bearer(stored.token) }).catch(() => undefined);
  }, []);

  const logIn = (next: Session, shown: Route) => {
    saveSession(next);
    setSession(next);
    const back = returnTo;
    setReturnTo(null);
    if (back) navigate(back);
    else navigate("/", shown);
  };

  const deleted = () => {
    saveSession(null);
    setSession(null);
    navigate("/");
    setNotice("accDeleted");
  };

  const changeLang = (next: Lang) => {
    rememberLang(next);
    setLang(next);
  };

  const logOut = async () => {
    const token = session?.token;
    saveSession(null);
    setSession(null);
    navigate("/");
    if (token) {
      try {
        await api.DELETE("/v1/sessions/current", { headers: bearer(token) });
      } catch {
        // the session is forgotten here; the service lets it expire
      }
    }
  };

  const switchLang = () => changeLang(lang === "fr" ? "en" : "fr");

  // the menu scrolled sideways (a phone): which ends hide links, for the cues
  const menu = useRef<HTMLUListElement>(null);
  const [more, setMore] = useState({ left: false, right: false });
  const measure = () => {
    const list = menu.current;
    if (!list) return;
    const left = list.scrollLeft > 1;
    const right = list.scrollLeft + list.clientWidth < list.scrollWidth - 1;
    setMore((old) => (old.left === left && old.right === right ? old : { left, right }));
  };
  useEffect(() => {
    measure();
    window.addEventListener("resize", measure);
    return () => window.removeEventListener("resize", measure);
  });

  const screen = (): JSX.Element => {
    switch (route.name) {
      case "welcome":
        return (
          <>
            <Welcome t={t} navigate={navigate} session={session} />
            {session ? <DeviceSheets t={t} session={session} navigate={navigate} /> : null}
          </>
        );
      case "created":
        return (
          <>
            <Created t={t} navigate={navigate} />
            {session ? <DeviceSheets t={t} session={session} navigate={navigate} /> : null}
          </>
        );
      case "signup":
        return <SignUp t={t} lang={lang} navigate={navigate} onSession={(s) => logIn(s, { name: "created" })} />;
      case "login":
        return <LogIn t={t} navigate={navigate} onSession={(s) => logIn(s, { name: "welcome" })} />;
      case "forgot":
        return <Forgot t={t} navigate={navigate} />;
      case "reset":
        return <Reset t={t} navigate={navigate} token={route.token} />;
      case "verify":
        return <Verify t={t} navigate={navigate} token={route.token} />;
      case "newSheet":
        return <NewSheet t={t} navigate={navigate} session={session} />;
      case "sheet":
        return <SheetScreen key={route.id} t={t} id={route.id} session={session} />;
      case "rules":
        return <Rules t={t} lang={lang} id={route.id} navigate={navigate} />;
      case "history":
        return <History t={t} lang={lang} session={session} navigate={navigate} />;
      case "stats":
        return <StatsScreen t={t} lang={lang} session={session} navigate={navigate} />;
      case "account":
        return <AccountScreen t={t} session={session} navigate={navigate} onLang={changeLang} onDeleted={deleted} />;
      case "newGame":
        return <NewGame t={t} navigate={navigate} session={session} />;
      case "tables":
        return <OpenTables t={t} session={session} navigate={navigate} />;
      case "game":
        return <GameScreen key={route.id} t={t} id={route.id} session={session} navigate={navigate} />;
      case "notFound":
        return (
          <section>
            <Heading>{t.notFound}</Heading>
            <Link href="/" navigate={navigate}>
              {t.home}
            </Link>
          </section>
        );
    }
  };

  const other: Lang = lang === "fr" ? "en" : "fr";
  return (
    <>
      <header class="bar">
        <Link href="/" navigate={navigate}>
          <span class="brand">{t.appName}</span>
        </Link>
        {/* on a phone, the account link and the language switch stay in the top row, in
            reach; the rest of the menu scrolls sideways under them (with a cue: « › ») */}
        <nav aria-label={t.accountNav} class="bar-end">
          <ul>
            <li>
              {session ? (
                <button type="button" class="link" onClick={() => void logOut()}>
                  {t.logout}
                </button>
              ) : (
                <Link href="/connexion" navigate={navigate}>
                  {t.login}
                </Link>
              )}
            </li>
            <li>
              <button type="button" class="link" lang={other} onClick={switchLang}>
                {t.switchTo}
              </button>
            </li>
          </ul>
        </nav>
        <nav aria-label={t.mainNav} class={`menu${more.left ? " more-left" : ""}${more.right ? " more-right" : ""}`}>
          <ul ref={menu} onScroll={measure}>
            <li>
              <Link href="/feuilles/nouvelle" navigate={navigate}>
                {t.newSheet}
              </Link>
            </li>
            <li>
              <Link href="/parties/nouvelle" navigate={navigate}>
                {t.playOnline}
              </Link>
            </li>
            <li>
              <Link href="/tables" navigate={navigate}>
                {t.tablesNav}
              </Link>
            </li>
            <li>
              <Link href="/regles/numwars" navigate={navigate}>
                {t.rules}
              </Link>
            </li>
            {session ? (
              <>
                <li>
                  <Link href={lang === "fr" ? "/historique" : "/history"} navigate={navigate}>
                    {t.histTitle}
                  </Link>
                </li>
                <li>
                  <Link href="/stats" navigate={navigate}>
                    {t.statsTitle}
                  </Link>
                </li>
                <li>
                  <Link href={lang === "fr" ? "/compte" : "/account"} navigate={navigate}>
                    {t.accTitle}
                  </Link>
                </li>
              </>
            ) : null}
          </ul>
        </nav>
      </header>
      {online ? null : (
        <p class="offline" role="status">
          {t.offline}
        </p>
      )}
      <main id="main">
        {notice ? (
          <p class={notice === "sessionLost" ? "problem" : "notice"} role={notice === "sessionLost" ? "alert" : "status"}>
            {t[notice]}
          </p>
        ) : null}
        {screen()}
      </main>
    </>
  );
}
