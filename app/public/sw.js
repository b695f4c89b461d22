// The app's service worker: keeps the shell (index.html and the files it loads) so the app
// opens offline. Pages: the network first (the shell kept anew), the kept shell when it fails. The hashed assets:
// the kept copy first (their name changes with their content). The API is never kept.
const SHELL = "numrules-shell-v1";

async function keepShell() {
  const cache = await caches.open(SHELL);
  const answer = await fetch("/", { cache: "no-cache" });
  if (!answer.ok) return;
  const html = await answer.clone().text();
  await cache.put("/", answer);
  const files = [...html.matchAll(/(?:src|href)="(\/(?:assets\/[^"]+|manifest\.webmanifest|icon\.svg))"/g)];
  await cache.addAll([...new Set(files.map((m) => m[1]))]);
}

self.addEventListener("install", (event) => {
  event.waitUntil(keepShell().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n !== SHELL).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(
      fetch(request)
        .then((answer) => {
          // every page of the app is the same shell: the newest one is kept (its assets are
          // kept as they are fetched, below), so the app opens offline as last seen; a
          // navigation to anything else (/docs, /openapi.json, /v1/…) is never kept as it
          const html = (answer.headers.get("content-type") || "").startsWith("text/html");
          const api = /^\/(v1|docs|openapi\.json|healthz|readyz|metrics)(\/|$)/.test(url.pathname);
          if (answer.ok && html && !api) {
            const copy = answer.clone();
            void caches.open(SHELL).then((cache) => cache.put("/", copy));
          }
          return answer;
        })
        .catch(() => caches.match("/").then((kept) => kept || Response.error())),
    );
    return;
  }
  if (url.pathname.startsWith("/assets/")) {
    event.respondWith(
      caches.match(request).then(
        (kept) =>
          kept ||
          fetch(request).then((answer) => {
            if (answer.ok) {
              const copy = answer.clone();
              void caches.open(SHELL).then((cache) => cache.put(request, copy));
            }
            return answer;
          }),
      ),
    );
  }
});
