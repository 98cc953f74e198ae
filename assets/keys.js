// Keyboard-first review. Outside text fields:
//   j / k     next / previous row of the queue (the row's title link takes the focus)
//   Enter     opens the focused row (the browser follows the focused link)
//   c         claims the focused queue row
//   x         selects the focused queue row for a batch (again: unselects it)
//   A         (Shift+a) approves the selected rows, after a confirmation
//   a         approves the first review on the conversation page you may approve
//   r         puts the cursor in the first review's instructions for the agent
//   ?         shows or hides this list (Escape hides it)
// In a review's instructions box, Ctrl+Enter (Cmd+Enter) sends the revision; in a tool call's
// arguments box it approves the call with those arguments.
// Every key acts by clicking or focusing the control a mouse user would use, so the server-side
// checks (role, claim, content hash) are the same.
(function () {
  if (window.hitlKeys) return;
  window.hitlKeys = true;

  const HELP = [
    ["j / k", "next / previous review in the queue"],
    ["Enter", "open the selected review"],
    ["c", "claim the selected review"],
    ["x", "select the review for a batch (again: unselect)"],
    ["A", "approve the selected reviews (asks first)"],
    ["a", "approve (conversation page)"],
    ["r", "write revise instructions (conversation page)"],
    ["Ctrl+Enter", "send the revision (in the instructions box)"],
    ["?", "show or hide these shortcuts"],
  ];

  function typing(el) {
    return !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  function queueRows() {
    return Array.from(document.querySelectorAll(".queue-row"));
  }

  function moveInQueue(step) {
    const rows = queueRows();
    if (!rows.length) return false;
    const current = rows.indexOf(document.activeElement && document.activeElement.closest(".queue-row"));
    const next = current < 0 ? (step > 0 ? 0 : rows.length - 1) : Math.max(0, Math.min(rows.length - 1, current + step));
    rows.forEach(function (row, i) {
      row.classList.toggle("kbd-selected", i === next);
    });
    const link = rows[next].querySelector(".queue-title");
    if (link) {
      link.focus();
      rows[next].scrollIntoView({ block: "nearest" });
    }
    return true;
  }

  function clickFirst(selector) {
    const found = Array.from(document.querySelectorAll(selector)).find(function (el) {
      return !el.disabled && el.offsetParent !== null;
    });
    if (found) found.click();
    return !!found;
  }

  function claimSelected() {
    const row = document.activeElement && document.activeElement.closest(".queue-row");
    const button = row && row.querySelector(".claim-button");
    if (button) button.click();
    return !!button;
  }

  function inFocusedRow(selector) {
    const row = document.activeElement && document.activeElement.closest(".queue-row");
    const control = row && row.querySelector(selector);
    if (control) control.click();
    return !!control;
  }

  function focusInstructions() {
    const box = document.querySelector(".review-card textarea[id^='decision-instructions-']");
    if (box) box.focus();
    return !!box;
  }

  function toggleHelp(show) {
    let dialog = document.getElementById("keyboard-help");
    if (dialog && show !== true) {
      dialog.remove();
      return true;
    }
    if (dialog || show === false) return true;
    dialog = document.createElement("div");
    dialog.id = "keyboard-help";
    dialog.setAttribute("role", "dialog");
    dialog.setAttribute("aria-modal", "true");
    dialog.setAttribute("aria-labelledby", "keyboard-help-title");
    dialog.tabIndex = -1;
    const title = document.createElement("h2");
    title.id = "keyboard-help-title";
    title.textContent = "Keyboard shortcuts";
    dialog.appendChild(title);
    const list = document.createElement("dl");
    HELP.forEach(function (pair) {
      const key = document.createElement("dt");
      const kbd = document.createElement("kbd");
      kbd.textContent = pair[0];
      key.appendChild(kbd);
      const what = document.createElement("dd");
      what.textContent = pair[1];
      list.appendChild(key);
      list.appendChild(what);
    });
    dialog.appendChild(list);
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Close (Esc)";
    close.addEventListener("click", function () { toggleHelp(false); });
    dialog.appendChild(close);
    document.body.appendChild(dialog);
    dialog.focus();
    return true;
  }

  window.hitlShowKeys = function () { toggleHelp(true); };

  document.addEventListener("keydown", function (event) {
    const target = event.target;
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter" && typing(target)) {
      const card = target.closest(".review-card");
      if (!card) return;
      const id = target.id || "";
      const button = id.startsWith("tool-args-") ? card.querySelector(".decide-approve")
        : id.startsWith("decision-instructions-") ? card.querySelector(".decide-revise") : null;
      if (button && !button.disabled) {
        event.preventDefault();
        // Typing reaches the server after a short debounce; leaving the box sends it now, ahead
        // of the click (a page's events are handled in order), so the decision carries it.
        target.blur();
        button.click();
      }
      return;
    }
    if (event.key === "Escape" && document.getElementById("keyboard-help")) {
      toggleHelp(false);
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(target)) return;
    // A confirmation is open: its own buttons answer (Tab, Enter, Escape), no shortcut.
    if (document.querySelector("[role='alertdialog']")) return;
    let handled = false;
    switch (event.key) {
      case "j": handled = moveInQueue(1); break;
      case "k": handled = moveInQueue(-1); break;
      case "c": handled = claimSelected(); break;
      case "x": handled = inFocusedRow(".batch-check"); break;
      case "A": handled = clickFirst("#batch-approve"); break;
      case "a": handled = clickFirst(".review-card .decide-approve"); break;
      case "r": handled = focusInstructions(); break;
      case "?": handled = toggleHelp(); break;
    }
    if (handled) event.preventDefault();
  });
})();
