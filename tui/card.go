package tui

// toggleCard switches the side box between the live counters and the
// player's report card (the same figures as 'lab run' prints, as
// lab.ReportCard.SideText writes them: the proxy's screen shows a game's
// the same way).
func (a *App) toggleCard() { a.showCard = !a.showCard }
