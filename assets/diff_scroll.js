// Long diff lines (hitl_dashboard/ui/components/diff_viewer.py, diff_file.py): each half of a diff
// scrolls sideways as one, with its own scrollbar kept at the bottom of the window (.diff-pane-scroll,
// focusable, so arrow keys scroll it too). The lines' cells clip (overflow hidden) and follow their
// half's bar (all by one offset); a sideways wheel or trackpad over a line moves that bar. A one-column diff has one bar.
// With "Wrap long lines" on (#diff[data-wrap="true"]) lines wrap and there is nothing to scroll.
(function () {
  if (window.hitlDiffScroll) return;
  window.hitlDiffScroll = true;
  let queued = false;

  function isSplit(body) {
    return !!body.querySelector("tr > td.left ~ td.right");
  }

  // The code cells a bar moves: one half's in a split diff, all of them in one column.
  function cellsFor(body, pane) {
    if (!isSplit(body)) return body.querySelectorAll("td.left, td.right");
    return body.querySelectorAll(pane === "left" ? "td.left" : "td.right");
  }

  function barFor(cell) {
    const body = cell.closest(".diff-file-body");
    if (!body) return null;
    const pane = isSplit(body) && cell.classList.contains("right") ? "right" : "left";
    return body.querySelector('.diff-pane-scroll[data-pane="' + pane + '"]');
  }

  // Every line of a half moves by the same offset (a CSS variable its code reads, assets/app.css):
  // a cell's own scrollLeft would stop each short line at its end and unalign the half.
  function follow(bar) {
    const body = bar.closest(".diff-file-body");
    if (!body) return;
    const shift = -bar.scrollLeft + "px";
    const panes = isSplit(body) ? [bar.dataset.pane] : ["left", "right"];
    panes.forEach(function (pane) { body.style.setProperty("--diff-shift-" + pane, shift); });
  }

  function layout(body) {
    const wrapped = !!body.closest('[data-wrap="true"]');
    const split = isSplit(body);
    const origin = body.getBoundingClientRect();
    body.querySelectorAll(".diff-pane-scroll").forEach(function (bar) {
      const cells = Array.from(cellsFor(body, bar.dataset.pane));
      const shown = cells.find(function (cell) { return cell.clientWidth > 0 && cell.firstElementChild; });
      let widest = 0;  // the code's own width: a transform does not change it
      cells.forEach(function (cell) {
        if (cell.firstElementChild) widest = Math.max(widest, cell.firstElementChild.scrollWidth);
      });
      const room = shown ? shown.firstElementChild.clientWidth : 0;
      const wide = !wrapped && (split || bar.dataset.pane === "left") && shown && widest > room + 1;
      bar.dataset.wide = wide ? "true" : "false";
      if (!wide) {
        if (split || bar.dataset.pane === "left") bar.scrollLeft = 0;
        body.style.removeProperty("--diff-shift-" + bar.dataset.pane);
        return;
      }
      const box = shown.getBoundingClientRect();
      bar.style.left = box.left - origin.left + "px";
      bar.style.width = box.width + "px";
      bar.firstElementChild.style.width = box.width + (widest - room) + "px";
      follow(bar);
    });
  }

  function layoutAll() {
    queued = false;
    document.querySelectorAll("#diff .diff-file-body").forEach(layout);
  }

  function schedule() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(layoutAll);
  }

  // Only changes in or around the diff: the transcript changes ten times a second while a message
  // streams, and measuring reads the layout of every diff cell (a forced layout per streamed update).
  function touchesDiff(records) {
    for (const record of records) {
      if (record.target.nodeType === 1 && record.target.closest("#diff")) return true;
      for (const node of record.addedNodes) {  // the diff appearing (a removed one needs nothing)
        if (node.nodeType === 1 && (node.id === "diff" || node.querySelector("#diff"))) return true;
      }
    }
    return false;
  }

  function start() {
    new MutationObserver(function (records) {
      if (touchesDiff(records)) schedule();
    }).observe(document.documentElement, { subtree: true, childList: true, attributes: true,
                                           attributeFilter: ["data-wrap"] });
    window.addEventListener("resize", schedule);
    // scroll does not bubble: caught on the way down.
    document.addEventListener("scroll", function (event) {
      const bar = event.target;
      if (bar.nodeType === 1 && bar.classList.contains("diff-pane-scroll")) follow(bar);
    }, true);
    document.addEventListener("wheel", function (event) {
      const cell = event.target.closest && event.target.closest("#diff td.left, #diff td.right");
      const dx = event.deltaX || (event.shiftKey ? event.deltaY : 0);
      if (!cell || !dx) return;
      const bar = barFor(cell);
      if (!bar || bar.dataset.wide !== "true") return;
      bar.scrollLeft += dx;
      event.preventDefault();
    }, { passive: false });
    schedule();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
