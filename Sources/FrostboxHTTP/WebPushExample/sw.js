// Frostbox's example service worker: shows each push the server sends. The message is JSON
// (decrypted by the browser): {"kind": "alert" | "verification", "alert_id", "title", "body",
// "tag", "data": {box, night, level, minimum_c, probability}}. A newer alert with the same tag
// replaces the one shown.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let message;
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = { title: "Frostbox", body: event.data ? event.data.text() : "" };
  }
  const options = { body: message.body || "", data: { alertID: message.alert_id, frost: message.data || null } };
  if (message.tag) options.tag = message.tag;
  event.waitUntil(self.registration.showNotification(message.title || "Frostbox", options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(self.clients.openWindow("/web-push"));
});
