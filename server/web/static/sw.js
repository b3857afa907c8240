/* The service worker of pbem's pages (served as /sw.js, its scope the whole site): it shows
   a Web Push notice (server/workers/webpush.py `payload`: title, body, url, tag, game) and
   opens the game's page when the notice is clicked.

   A push says only what a spectator of the game may know, plus "your move": the body is
   shown as it comes, as plain text (a notification has no markup).  Each game's notices
   share a tag, so a newer notice of a game replaces the older one rather than piling up. */
"use strict";

self.addEventListener("install", function () { self.skipWaiting(); });

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

/* only a page of this site: a push naming another site's address opens the game here */
function pageOf(data) {
  var fallback = data.game ? "/g/" + encodeURIComponent(String(data.game)) : "/";
  try {
    var url = new URL(String(data.url || fallback), self.location.origin);
    if (url.origin === self.location.origin) { return url.href; }
  } catch (e) { /* not a URL: the game's page */ }
  return new URL(fallback, self.location.origin).href;
}

function noticeOf(event) {
  var data = {};
  if (event.data) {
    try { data = event.data.json() || {}; }
    catch (e) { data = {title: "pbem", body: event.data.text()}; }
  }
  if (typeof data !== "object") { data = {}; }
  return {
    title: String(data.title || "pbem").slice(0, 120),
    options: {body: String(data.body || "").slice(0, 600),
              tag: String(data.tag || (data.game ? "pbem-" + data.game : "pbem")),
              renotify: true, data: {url: pageOf(data), game: data.game || null}}
  };
}

self.addEventListener("push", function (event) {
  var notice = noticeOf(event);
  event.waitUntil(self.registration.showNotification(notice.title, notice.options));
});

self.addEventListener("notificationclick", function (event) {
  var url = (event.notification.data && event.notification.data.url) ||
    new URL("/", self.location.origin).href;
  event.notification.close();
  event.waitUntil(self.clients.matchAll({type: "window", includeUncontrolled: true})
    .then(function (windows) {
      for (var i = 0; i < windows.length; i++) {
        if (windows[i].url === url && "focus" in windows[i]) { return windows[i].focus(); }
      }
      return self.clients.openWindow(url);
    }));
});
