package pavilion

import "github.com/azuld/azuld/engine"

// Describe is what the event did as language-neutral data.
func (e Event) Describe() engine.Description {
	d := engine.Description{Seat: int(e.Seat)}
	switch e.Kind {
	case EvGameStarted:
		d.Phrase = engine.PhraseStarted
	case EvRoundStarted:
		d.Phrase, d.Round, d.Colour = engine.PhraseRoundStarted, int(e.Round), e.Wild.String()
	case EvTilesTaken:
		d.Phrase, d.News, d.Scoring = engine.PhrasePavilionTaken, engine.NewsMove, e.Token
		d.Colour, d.Count, d.Wilds, d.Marker, d.Source = e.Colour.String(), int(e.Count), int(e.WildTaken), e.Token, int(e.Source)
		d.Points = -int(e.Lost)
	case EvAcquisitionEnded:
		d.Phrase, d.News = engine.PhrasePavilionPlacingBegan, engine.NewsTable
	case EvTilePlaced:
		d.Phrase, d.News, d.Scoring = engine.PhrasePavilionPlaced, engine.NewsPlay, true
		d.Colour, d.Star, d.Space, d.Points = e.Colour.String(), int(e.Star), int(e.Space), int(e.Points)
		d.CentreStar = int(e.Star) == CentreStar
		if c, ok := StarColour(int(e.Star)); ok {
			d.StarColour = c.String()
		}
		for f := range NumFeatures {
			if e.Features&(1<<uint(f)) != 0 {
				d.Features = append(d.Features, engine.Feature{Kind: FeatureKind(f), Star: FeatureStar(f)})
			}
		}
	case EvBonusTaken:
		d.Phrase, d.News = engine.PhrasePavilionBonus, engine.NewsPlay
		d.Tiles = tileCounts(e.Tiles)
	case EvSupplyRefilled:
		d.Phrase, d.Seat = engine.PhrasePavilionSupplyRefilled, -1
	case EvPassed:
		d.Phrase, d.News, d.Scoring = engine.PhrasePavilionPassed, engine.NewsPlay, true
		d.Tiles, d.Discarded, d.Points = tileCounts(e.Tiles), e.Discarded.Total(), -int(e.Lost)
	case EvResigned:
		d.Phrase, d.News = engine.PhraseResigned, engine.NewsMove
	case EvGameEnded:
		d.Phrase, d.Seat = engine.PhraseGameEnded, -1
	}
	return d
}

// tileCounts are the colours of t that hold tiles, in colour order.
func tileCounts(t Tiles) []engine.Tiles {
	var out []engine.Tiles
	for c, n := range t {
		if n > 0 {
			out = append(out, engine.Tiles{Colour: Colour(c).String(), Count: int(n)})
		}
	}
	return out
}
