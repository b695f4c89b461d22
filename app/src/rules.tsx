// "Règles de Calcul": the rules summary the API serves for a ruleset (`GET /v1/rulesets/{id}`),
// in the app's language (api-contract.md, "The app"), with the four rulesets to choose from
// (their names from the catalogue, `GET /v1/rulesets`).

import { useEffect, useState } from "preact/hooks";
import { type Refusal, type Schemas, api, refusal } from "./api";
import type { Texts } from "./i18n";
import { Heading, Link, type Navigate, Problem } from "./ui";

export type RulesetId = Schemas["RulesetInfo"]["id"];
const RULESETS: readonly RulesetId[] = ["numwars", "numwars-classic", "numking", "numwin"];

export function rulesetOf(id: string): RulesetId | null {
  return RULESETS.find((known) => known === id) ?? null;
}

export function Rules({ t, lang, id, navigate }: { t: Texts; lang: string; id: RulesetId; navigate: Navigate }) {
  const [info, setInfo] = useState<Schemas["RulesetInfo"] | null>(null);
  const [problem, setProblem] = useState<Refusal | null>(null);
  const [names, setNames] = useState<Partial<Record<RulesetId, string>>>({});

  useEffect(() => {
    api
      .GET("/v1/rulesets")
      .then(({ data }) => {
        if (data) setNames(Object.fromEntries(data.rulesets.map((r) => [r.id, r.name])));
      })
      .catch(() => undefined);
  }, [lang]);

  useEffect(() => {
    setInfo(null);
    api
      .GET("/v1/rulesets/{ruleset}", { params: { path: { ruleset: id } } })
      .then(({ data, error }) => (data ? setInfo(data) : setProblem(refusal(error, t.networkError))))
      .catch(() => setProblem({ detail: t.networkError, fields: {} }));
  }, [id, lang]);

  const sections = Object.entries(info?.summary ?? {});
  return (
    <section>
      <Heading>{t.rules}</Heading>
      <nav aria-label={t.rulesGames}>
        <ul class="ruleset-links">
          {RULESETS.map((other) => {
            const name = names[other] ?? (other === id ? info?.name : undefined) ?? other;
            return (
              <li key={other}>
                {other === id ? (
                  <strong aria-current="page">{name}</strong>
                ) : (
                  <Link href={`/${lang === "fr" ? "regles" : "rules"}/${other}`} navigate={navigate}>
                    {name}
                  </Link>
                )}
              </li>
            );
          })}
        </ul>
      </nav>
      {info ? (
        <>
          <h2>{info.name}</h2>
          {info.description ? <p>{info.description}</p> : null}
          <dl class="rules">
            {sections.map(([key, text]) => (
              <div key={key}>
                <dt>{t.ruleSections[key] ?? key}</dt>
                <dd>{text}</dd>
              </div>
            ))}
          </dl>
        </>
      ) : problem ? null : (
        <p>{t.loading}</p>
      )}
      <Problem refusal={problem} shown={[]} />
    </section>
  );
}
