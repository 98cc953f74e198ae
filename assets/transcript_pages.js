// Older transcript messages arrive as the reader scrolls up (hitl_dashboard/ui/components/
// transcript.py): a ".transcript-load" button is clicked once it comes within a screen of the
// viewport. Each page's button is a new element (its React key changes), so every page is asked for
// once, and again only if the reader comes back to the new button.
(function () {
  if (window.hitlTranscriptPages) return;
  window.hitlTranscriptPages = true;

  const seen = new WeakSet();
  const observers = new WeakMap();  // one per scroller: "near" is measured inside the transcript's own

  function clickWhenNear(entries, observer) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      observer.unobserve(entry.target);
      if (entry.target.isConnected && !entry.target.disabled) entry.target.click();
    });
  }

  function observerFor(button) {
    const root = button.closest(".transcript-scroll");
    const key = root || document;
    if (!observers.has(key)) {
      observers.set(key, new IntersectionObserver(clickWhenNear, { root: root, rootMargin: "50% 0px" }));
    }
    return observers.get(key);
  }

  function watchButtons() {
    document.querySelectorAll(".transcript-load").forEach(function (button) {
      if (seen.has(button)) return;
      seen.add(button);
      observerFor(button).observe(button);
    });
  }

  function start() {
    let queued = false;
    new MutationObserver(function () {
      if (queued) return;
      queued = true;
      requestAnimationFrame(function () { queued = false; watchButtons(); });
    }).observe(document.documentElement, { subtree: true, childList: true });
    watchButtons();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
