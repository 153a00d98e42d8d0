// Frostbox's example web client (plain JavaScript, no build step): registers the service
// worker, and on "Turn on frost alerts" asks for permission, subscribes with the server's VAPID
// public key, registers the subscription (POST /v1/devices) and adds the place.
"use strict";

const statusLine = () => document.getElementById("status");
const say = (text) => { statusLine().textContent = text; };

// The VAPID key as the bytes pushManager.subscribe takes (it is base64url).
function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

async function json(response) {
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error ? body.error.message : `HTTP ${response.status}`);
  return body;
}

async function turnOn(registration) {
  say("Asking for permission to show notifications…");
  if (await Notification.requestPermission() !== "granted") throw new Error("notifications are not allowed for this page");
  say("Subscribing with the server's key…");
  const { public_key: key, app } = await json(await fetch("/v1/web-push/public-key"));
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  say("Registering this browser…");
  const device = await json(await fetch("/v1/devices", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ platform: "web", app, subscription: subscription.toJSON(), locale: navigator.language || null }),
  }));
  localStorage.setItem("frostbox.device", device.device_id);
  const form = document.getElementById("place");
  const place = { name: form.name.value, latitude: Number(form.latitude.value), longitude: Number(form.longitude.value) };
  await json(await fetch(`/v1/devices/${encodeURIComponent(device.device_id)}/subscriptions`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(place),
  }));
  say(`Frost alerts are on for ${place.name}. The first push confirms this browser; the next ones say when frost is coming.`);
}

async function start() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
    say("This browser cannot receive push messages (on an iPhone: add this page to the home screen first).");
    return;
  }
  const registration = await navigator.serviceWorker.register("/web-push/sw.js", { scope: "/web-push" });
  await navigator.serviceWorker.ready;
  document.body.dataset.worker = "ready";
  const known = localStorage.getItem("frostbox.device");
  say(known ? "Frost alerts are on in this browser." : "Ready: choose a place and turn frost alerts on.");
  document.getElementById("place").addEventListener("submit", (event) => {
    event.preventDefault();
    turnOn(registration).catch((error) => say(`Could not turn frost alerts on: ${error.message}`));
  });
}

window.addEventListener("DOMContentLoaded", () => { start().catch((error) => say(`Could not start: ${error.message}`)); });
