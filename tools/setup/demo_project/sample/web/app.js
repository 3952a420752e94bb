let cents = 0;
document.getElementById("add").addEventListener("click", () => {
  cents += 250;
  document.getElementById("total").textContent = `Total: ${(cents / 100).toFixed(2)}`;
});
