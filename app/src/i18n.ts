// Every word the app shows, in French (the default) and English. `en` is typed by `fr`: a
// key missing from either fails `tsc`. The screens' words are seed 002's (api-contract.md,
// "The app"); the API's own words (problems, breakdown labels, the terms) come from the API
// in the same language, asked by `Accept-Language`.

export type Lang = "fr" | "en";

// The sections of a rules summary (`GET /v1/rulesets/{id}`), by key; another key shows as is.
const RULE_SECTIONS_FR: Record<string, string> = {
  setup: "Mise en place",
  turn: "Tour de jeu",
  hierarchy: "Hiérarchie",
  scoring: "Score",
};

const fr = {
  title: "Num Project — feuilles de score",
  appName: "Num Project",
  switchTo: "English",
  mainNav: "Menu principal",
  offline: "Hors ligne : l'application fonctionne, les scores seront calculés au retour du réseau.",
  loading: "Chargement…",
  // welcome
  join: "Rejoins la communauté des joueurs !",
  pitch: "Sauvegarde tes scores, retrouve l'historique de tes parties, suis tes stats et ne rate aucune nouveauté.",
  community: "🔒 Crée un compte pour accéder aux jeux de la communauté",
  createAccount: "Créer mon compte",
  login: "Connexion",
  logout: "Déconnexion",
  loggedInAs: (pseudo: string) => `Connecté : ${pseudo}`,
  // sign-up
  signupPitch: "C'est rapide, c'est gratuit — et tu accèdes aux jeux de la communauté 🔒.",
  pseudo: "Pseudo",
  password: "Mot de passe",
  ageRange: "Ta tranche d'âge",
  ageChoose: "Choisis…",
  ageRequired: "Choisis ta tranche d'âge.",
  ages: {
    "under-13": "moins de 13 ans",
    "13-17": "13 à 17 ans",
    "18-24": "18 à 24 ans",
    "25-34": "25 à 34 ans",
    "35-49": "35 à 49 ans",
    "50-plus": "50 ans et plus",
  },
  acceptTerms: "J'accepte les conditions d'utilisation",
  readTerms: "Lire les conditions d'utilisation",
  termsVersion: (version: string) => `Version du ${version}`,
  created: "Bienvenue !",
  createdText: "Ton compte est créé. Prêt à jouer ?",
  // log-in
  loginPitch: "Content de te revoir ! Retrouve tes jeux communauté 🔒.",
  emailOrPseudo: "Email ou pseudo",
  forgot: "Mot de passe oublié ?",
  forgotTitle: "Mot de passe oublié",
  forgotSend: "Envoyer le lien",
  resetTitle: "Nouveau mot de passe",
  newPassword: "Nouveau mot de passe",
  resetSave: "Changer le mot de passe",
  resetDone: "Mot de passe changé : connecte-toi avec le nouveau.",
  noToken: "Ce lien n'a pas de jeton : ouvre le lien reçu par email.",
  verifyTitle: "Vérification de l'email",
  verifyDone: "Email vérifié : tu peux te connecter avec.",
  // sheets
  newSheet: "Nouvelle feuille de score",
  ruleset: "Jeu",
  numwars: "Num Wars",
  players: "Joueurs",
  playerName: (n: number) => `Joueur ${n}`,
  addPlayer: "Ajouter un joueur",
  removePlayer: (name: string) => `Retirer ${name}`,
  plannedRounds: "Manches prévues",
  createSheet: "Créer la feuille",
  round: (n: number) => `Manche ${n}`,
  dealer: (name: string) => `Donneur : ${name}`,
  role: "Rôle",
  roles: {
    poseur: "Poseur (Bombe)",
    complice: "Complice (Joker)",
    demineur: "Démineur (Quantique)",
    agent: "Agent (Num-X)",
    civil: "Civil",
  },
  cardType: "TYPE DE CARTE",
  cardTypes: {
    classic: "Classique (couleur)",
    rainbow: "Rainbow",
    shadow: "Shadow",
    pair: "Paire d'atouts (Rainbow + Shadow)",
    joker: "Joker",
    numx: "Num-X",
    quantum: "Quantique",
  },
  value: "Valeur",
  count: "Nombre",
  addCards: "Ajouter",
  capturedOf: (name: string) => `Cartes prises par ${name}`,
  noCards: "Aucune carte pour l'instant.",
  removeCards: (what: string) => `Retirer ${what}`,
  classicCards: (count: number, value: number) => `${count} × ${value}`,
  pairOf: (value: number) => `paire d'atouts ${value}`,
  noMore: "Plus aucune carte de ce type dans le paquet.",
  bombHolder: "Qui a eu la Bombe ?",
  bombChoose: "Choisis…",
  bombHow: "Comment le poseur l'a-t-il gardée ?",
  bombWays: {
    kept: "Aucune menace : Bombe gardée",
    protected: "Le Joker a neutralisé un Shadow",
    "protected-quantum": "Le Joker a neutralisé la Quantique",
  },
  liveScore: "Score de la manche",
  chooseBomb: "Choisis qui a eu la Bombe pour voir le score.",
  // French: « 0 pt », « 1 pt », « 2 pts »; « 1 manche », « 2 manches »
  points: (n: number) => `${n} ${Math.abs(n) < 2 ? "pt" : "pts"}`,
  part: (label: string, n: number) => `${label} : ${n} ${Math.abs(n) < 2 ? "pt" : "pts"}`,
  scoreOf: (name: string, n: number) => `${name} : ${n} ${Math.abs(n) < 2 ? "pt" : "pts"}`,
  saveRound: "Enregistrer la manche",
  totals: "Totaux",
  leader: (names: string) => `En tête : ${names}`,
  winner: (names: string) => `Vainqueur : ${names}`,
  roundsDone: (done: number, planned: number) => `${done} ${done < 2 ? "manche" : "manches"} sur ${planned}`,
  total: "Total",
  player: "Joueur",
  saved: (n: number) => `Manche ${n} enregistrée.`,
  sheetMissing: "Cette feuille n'est pas sur cet appareil : ouvre-la depuis l'appareil qui l'a créée ou connecte-toi.",
  error: "Erreur",
  networkError: "Le service ne répond pas. Vérifie la connexion puis réessaie.",
  home: "Accueil",
  rules: "Règles de Calcul",
  ruleSections: RULE_SECTIONS_FR,
  notFound: "Cette page n'existe pas.",

  // ── other rulesets' sheets ──

  // ── corrections, history, stats, account ──

  // ── sharing and claims ──

  // ── online play ──

};

export type Texts = typeof fr;

const en: Texts = {
  title: "Num Project — score sheets",
  appName: "Num Project",
  switchTo: "Français",
  mainNav: "Main menu",
  offline: "Offline: the app works, scores are computed when the network is back.",
  loading: "Loading…",
  join: "Join the players' community!",
  pitch: "Save your scores, find your games' history, follow your stats and never miss what's new.",
  community: "🔒 Create an account to play the community games",
  createAccount: "Create my account",
  login: "Log in",
  logout: "Log out",
  loggedInAs: (pseudo: string) => `Logged in: ${pseudo}`,
  signupPitch: "It's quick, it's free — and you get the community games 🔒.",
  pseudo: "Pseudo",
  password: "Password",
  ageRange: "Your age range",
  ageChoose: "Choose…",
  ageRequired: "Choose your age range.",
  ages: {
    "under-13": "under 13",
    "13-17": "13 to 17",
    "18-24": "18 to 24",
    "25-34": "25 to 34",
    "35-49": "35 to 49",
    "50-plus": "50 and over",
  },
  acceptTerms: "I accept the terms of use",
  readTerms: "Read the terms of use",
  termsVersion: (version: string) => `Version of ${version}`,
  created: "Welcome!",
  createdText: "Your account is created. Ready to play?",
  loginPitch: "Good to see you again! Your community games 🔒 are waiting.",
  emailOrPseudo: "Email or pseudo",
  forgot: "Forgot your password?",
  forgotTitle: "Forgotten password",
  forgotSend: "Send the link",
  resetTitle: "New password",
  newPassword: "New password",
  resetSave: "Change the password",
  resetDone: "Password changed: log in with the new one.",
  noToken: "This link has no token: open the link from the email.",
  verifyTitle: "Email verification",
  verifyDone: "Email verified: you can log in with it.",
  newSheet: "New score sheet",
  ruleset: "Game",
  numwars: "Num Wars",
  players: "Players",
  playerName: (n: number) => `Player ${n}`,
  addPlayer: "Add a player",
  removePlayer: (name: string) => `Remove ${name}`,
  plannedRounds: "Planned rounds",
  createSheet: "Create the sheet",
  round: (n: number) => `Round ${n}`,
  dealer: (name: string) => `Dealer: ${name}`,
  role: "Role",
  roles: {
    poseur: "Poseur (Bomb)",
    complice: "Complice (Joker)",
    demineur: "Demineur (Quantum)",
    agent: "Agent (Num-X)",
    civil: "Civil",
  },
  cardType: "CARD TYPE",
  cardTypes: {
    classic: "Classic (colour)",
    rainbow: "Rainbow",
    shadow: "Shadow",
    pair: "Trump pair (Rainbow + Shadow)",
    joker: "Joker",
    numx: "Num-X",
    quantum: "Quantum",
  },
  value: "Value",
  count: "Count",
  addCards: "Add",
  capturedOf: (name: string) => `Cards taken by ${name}`,
  noCards: "No cards yet.",
  removeCards: (what: string) => `Remove ${what}`,
  classicCards: (count: number, value: number) => `${count} × ${value}`,
  pairOf: (value: number) => `trump pair ${value}`,
  noMore: "No card of this type left in the deck.",
  bombHolder: "Who had the Bomb?",
  bombChoose: "Choose…",
  bombHow: "How did the poseur keep it?",
  bombWays: {
    kept: "No threat: the Bomb kept",
    protected: "The Joker neutralized a Shadow",
    "protected-quantum": "The Joker neutralized the Quantum",
  },
  liveScore: "Round score",
  chooseBomb: "Choose who had the Bomb to see the score.",
  points: (n: number) => `${n} ${Math.abs(n) === 1 ? "pt" : "pts"}`,
  part: (label: string, n: number) => `${label}: ${n} ${Math.abs(n) === 1 ? "pt" : "pts"}`,
  scoreOf: (name: string, n: number) => `${name}: ${n} ${Math.abs(n) === 1 ? "pt" : "pts"}`,
  saveRound: "Save the round",
  totals: "Totals",
  leader: (names: string) => `Leading: ${names}`,
  winner: (names: string) => `Winner: ${names}`,
  roundsDone: (done: number, planned: number) => `${done} of ${planned} ${planned === 1 ? "round" : "rounds"}`,
  total: "Total",
  player: "Player",
  saved: (n: number) => `Round ${n} saved.`,
  sheetMissing: "This sheet is not on this device: open it from the device that made it, or log in.",
  error: "Error",
  networkError: "The service does not answer. Check the connection and try again.",
  home: "Home",
  rules: "Scoring rules",
  ruleSections: {
    setup: "Setup",
    turn: "A turn",
    hierarchy: "Hierarchy",
    scoring: "Scoring",
  },
  notFound: "This page does not exist.",

  // ── other rulesets' sheets ──

  // ── corrections, history, stats, account ──

  // ── sharing and claims ──

  // ── online play ──

};

export const catalogue: Record<Lang, Texts> = { fr, en };

const STORED = "numrules.lang";

/** The remembered choice, else the browser's language (English if it says so), else French. */
export function initialLang(): Lang {
  const stored = localStorage.getItem(STORED);
  if (stored === "fr" || stored === "en") return stored;
  return navigator.language.toLowerCase().startsWith("en") ? "en" : "fr";
}

export function rememberLang(lang: Lang): void {
  localStorage.setItem(STORED, lang);
}
