// A code block that is wider than the page scrolls sideways: it takes the keyboard's focus, so that it can be
// scrolled without a mouse (WCAG 2.1.1; axe-core's scrollable-region-focusable).
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("pre").forEach(function (block) {
    block.setAttribute("tabindex", "0");
  });
});
