// New review requests in the user's queues, seen from any page: "(3) Conversations · HITL Dashboard"
// in the tab title until the user looks at the queue, and, once the user opted in with the button on
// the queue page, one desktop notification per new request.
// Input: #queue-watch (hitl_dashboard/ui/components/queue_watch.py), whose data-arrivals holds the
// newest open requests of the user's queues as JSON. The server pushes each change of the summary
// (ui/states/queue_summary.py); when the tab becomes visible again this clicks its hidden refresh
// button, which also watches the summary again after a rights change. Titles are agent- or user-written text: they
// only ever reach document.title and the Notification API, both plain text; never innerHTML.
// Per user in localStorage: the newest request seen on the queue page, the newest one notified,
// and the opt-in.
(function () {
  if (window.hitlQueueWatch) return;
  const QUEUE_PATH = "/queue";
  const PREFIX = /^\(\d+\+?\) /;
  const RECENT_MS = 10 * 60 * 1000;
  let user = "", arrivals = [], lastRaw = null, wanted = "";

  const key = (what) => "hitl-queue-" + what + "-" + user;
  const read = (what) => Number(localStorage.getItem(key(what)) || 0);
  const write = (what, value) => localStorage.setItem(key(what), String(value));
  const newestId = () => arrivals.reduce((m, a) => Math.max(m, a.review_id), 0);
  const onQueue = () => location.pathname.replace(/\/+$/, "") === QUEUE_PATH && document.visibilityState === "visible";
  const optedIn = () => user && localStorage.getItem(key("notify")) === "on";

  function showTitle(unread) {
    const base = document.title.replace(PREFIX, "");
    wanted = unread > 0 ? "(" + (unread >= 50 ? "50+" : unread) + ") " + base : base;
    if (document.title !== wanted) document.title = wanted;
  }

  function notify(newer) {
    if (!optedIn() || !("Notification" in window) || Notification.permission !== "granted") return;
    // Not a backlog: requests that came while no tab was open are on the queue page.
    const recent = Date.now() - RECENT_MS;
    newer.filter((a) => a.created_ms > recent).slice(0, 5).forEach(function (a) {
      try {
        // The tag lets the system show one notification per request when several tabs are open.
        new Notification("New review request: " + String(a.role), {
          body: String(a.title), tag: "hitl-review-" + a.review_id,
        });
      } catch (e) { /* a browser that only allows notifications from a service worker */ }
    });
  }

  function update() {
    const el = document.getElementById("queue-watch");
    if (!el || el.getAttribute("data-loaded") !== "true") return showTitle(0);
    const raw = el.getAttribute("data-arrivals") || "[]";
    const who = el.getAttribute("data-user") || "";
    if (raw !== lastRaw || who !== user) {
      lastRaw = raw;
      user = who;
      try { arrivals = JSON.parse(raw) || []; } catch (e) { arrivals = []; }
    }
    if (!user || user === "0") return showTitle(0);
    const newest = newestId();
    // First time on this browser: what is already waiting is neither unread nor notified.
    if (localStorage.getItem(key("seen")) === null) write("seen", newest);
    if (localStorage.getItem(key("notified")) === null) write("notified", newest);
    if (onQueue() && newest > read("seen")) write("seen", newest);
    const notified = read("notified");
    const newer = arrivals.filter((a) => a.review_id > notified);
    if (newer.length) {
      write("notified", newest);
      if (!onQueue()) notify(newer);
    }
    const seen = read("seen");
    showTitle(arrivals.filter((a) => a.review_id > seen).length);
  }

  function poll() {
    const button = document.getElementById("queue-watch-refresh");
    if (button) button.click();
  }

  function showOptIn() {
    const state = optedIn() && "Notification" in window && Notification.permission === "granted" ? "on" : "off";
    // Only on a change: this runs on every mutation of the page.
    if (document.documentElement.getAttribute("data-notify") !== state) {
      document.documentElement.setAttribute("data-notify", state);
    }
  }

  window.hitlQueueWatch = {
    update: update,
    // From the button's click (a user gesture): the only place that asks for permission.
    toggleNotifications: function () {
      if (!user || !("Notification" in window)) return;
      if (optedIn()) {
        localStorage.removeItem(key("notify"));
        return showOptIn();
      }
      Notification.requestPermission().then(function (permission) {
        if (permission === "granted") localStorage.setItem(key("notify"), "on");
        showOptIn();
      });
    },
  };

  function start() {
    // React re-renders the watched element and the page title; both are cheap to re-check.
    new MutationObserver(function () {
      update();
      showOptIn();
    }).observe(document.documentElement, {
      subtree: true, childList: true, characterData: true, attributes: true,
      attributeFilter: ["data-arrivals", "data-user", "data-loaded"],
    });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") poll();
      update();
    });
    update();
    showOptIn();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
