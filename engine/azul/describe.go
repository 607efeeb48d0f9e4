package azul

import "github.com/azuld/azuld/engine"

// Describe is what the event did as language-neutral data.
func (e Event) Describe() engine.Description {
	d := engine.Description{Seat: int(e.Seat)}
	switch e.Kind {
	case EvGameStarted:
		d.Phrase = engine.PhraseStarted
	case EvFactoriesFilled:
		d.Phrase, d.Round = engine.PhraseRoundStarted, int(e.Round)
	case EvTilesTaken:
		d.Phrase, d.News = engine.PhraseAzulTaken, engine.NewsMove
		d.Colour, d.Count, d.Source, d.Marker, d.Line = e.Colour.String(), int(e.Count), int(e.Source), e.Marker, int(e.Line)
		d.To = parts(e.ToLine, e.ToFloor, e.ToLid)
	case EvWallTiled:
		d.Phrase, d.Scoring = engine.PhraseAzulWallTiled, true
		d.Colour, d.Line, d.Points = e.Colour.String(), int(e.Line), int(e.Points)
	case EvLineToFloor:
		d.Phrase, d.Scoring = engine.PhraseAzulLineToFloor, true
		d.Colour, d.Count, d.Line = e.Colour.String(), int(e.Count), int(e.Line)
		d.To = parts(0, e.ToFloor, e.ToLid)
	case EvFloorScored:
		d.Phrase, d.Scoring = engine.PhraseAzulFloorScored, true
		d.Floor, d.Points, d.Penalty = int(e.FloorLen), -int(e.Points), -int(e.Penalty)
	case EvGameEnded:
		d.Phrase, d.Seat = engine.PhraseGameEnded, -1
	}
	return d
}

// parts are the places a move's tiles went to, the empty ones left out.
func parts(line, floor, lid uint8) []engine.Part {
	var out []engine.Part
	for _, p := range []engine.Part{
		{Place: engine.PlaceLine, Count: int(line)},
		{Place: engine.PlaceFloor, Count: int(floor)},
		{Place: engine.PlaceLid, Count: int(lid)},
	} {
		if p.Count > 0 {
			out = append(out, p)
		}
	}
	return out
}
