// Ages ("12 min ago") and SLA countdowns ("due in 3 h": the badges, the conversation's status banner)
// keep moving between the server's refreshes, with no round trip: elements carry the moment as epoch
// milliseconds (data-since-ms, data-due-ms) and this recomputes their text every few seconds. The
// wording and the thresholds are those of hitl_dashboard/ui/views/formatting.py (span, countdown):
// change both together.
(function () {
  if (window.hitlTick) return;
  const URGENCY_COLORS = { ok: "gray", soon: "amber", overdue: "red" };
  const SOON_S = 6 * 3600;

  function span(seconds) {
    seconds = Math.floor(Math.abs(seconds));
    if (seconds < 60) return seconds + " s";
    if (seconds < 3600) return Math.floor(seconds / 60) + " min";
    if (seconds < 86400) {
      const minutesTotal = Math.floor(seconds / 60);
      const hours = Math.floor(minutesTotal / 60), minutes = minutesTotal % 60;
      return minutes && hours < 10 ? hours + " h " + minutes + " min" : hours + " h";
    }
    return Math.floor(seconds / 86400) + " d " + Math.floor((seconds % 86400) / 3600) + " h";
  }

  function tick() {
    const now = Date.now();
    document.querySelectorAll("[data-due-ms]").forEach(function (badge) {
      const due = Number(badge.getAttribute("data-due-ms"));
      if (!due) return;
      const left = (due - now) / 1000;
      const urgency = left < 0 ? "overdue" : left < SOON_S ? "soon" : "ok";
      const label = badge.querySelector(".tick-text");
      if (label) label.textContent = left < 0 ? "overdue by " + span(left) : "due in " + span(left);
      // Only an SLA badge takes the urgency's colour; text elsewhere (the status banner) keeps its own.
      if (!badge.classList.contains("due-badge")) return;
      badge.setAttribute("data-accent-color", URGENCY_COLORS[urgency]);
      badge.classList.toggle("rt-variant-soft", urgency === "ok");
      badge.classList.toggle("rt-variant-solid", urgency !== "ok");
      badge.classList.remove("due-ok", "due-soon", "due-overdue");
      badge.classList.add("due-" + urgency);
    });
    document.querySelectorAll("[data-since-ms]").forEach(function (el) {
      const since = Number(el.getAttribute("data-since-ms"));
      if (since) el.textContent = span((now - since) / 1000) + " ago";
    });
  }

  window.hitlTick = tick; // the browser tests call it after moving the clock
  setInterval(tick, 5000);
  document.addEventListener("visibilitychange", tick);
})();
