// A long line of the diff scrolls sideways inside its own cell (hitl_dashboard/ui/components/
// diff_viewer.py). A keyboard user must be able to reach such a cell to scroll it, so the cells that
// really overflow get tabindex="0"; only those, so Tab does not stop on every line of code.
(function () {
  if (window.hitlDiffScroll) return;
  window.hitlDiffScroll = true;
  let queued = false;

  function mark() {
    queued = false;
    document.querySelectorAll("#diff td.left, #diff td.right").forEach(function (cell) {
      const wide = cell.scrollWidth > cell.clientWidth + 1;
      if (wide && !cell.hasAttribute("tabindex")) cell.setAttribute("tabindex", "0");
      else if (!wide && cell.getAttribute("tabindex") === "0") cell.removeAttribute("tabindex");
    });
  }

  function schedule() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(mark);
  }

  // Only changes in or around the diff: the transcript changes ten times a second while a message
  // streams, and marking reads the layout of every diff cell (a forced layout per streamed update).
  function touchesDiff(records) {
    for (const record of records) {
      if (record.target.nodeType === 1 && record.target.closest("#diff")) return true;
      for (const node of record.addedNodes) {  // the diff appearing (a removed one needs no marks)
        if (node.nodeType === 1 && (node.id === "diff" || node.querySelector("#diff"))) return true;
      }
    }
    return false;
  }

  function start() {
    new MutationObserver(function (records) {
      if (touchesDiff(records)) schedule();
    }).observe(document.documentElement, { subtree: true, childList: true });
    window.addEventListener("resize", schedule);
    schedule();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
