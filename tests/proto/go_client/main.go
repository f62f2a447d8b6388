// A Go client of the engine, built by tests/proto/test_go_code.py from code that protoc
// generates out of proto/domino/v1 with no M flags: it provokes refusals on the Engine
// service and the Play stream and prints, one JSON line each, what it decoded from them.
// refusalOf is the snippet of docs/bots.md ("Go").
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	dominov1 "example.com/gobot/gen/domino/v1"
)

// refusalOf returns the Refusal among a failed call's status details (nil if none), and
// the ErrorInfo and BadRequest beside it.
func refusalOf(err error) (*dominov1.Refusal, *errdetails.ErrorInfo, *errdetails.BadRequest) {
	var refusal *dominov1.Refusal
	var info *errdetails.ErrorInfo
	var bad *errdetails.BadRequest
	st, ok := status.FromError(err)
	if !ok {
		return nil, nil, nil // not a gRPC status: the connection itself failed
	}
	for _, detail := range st.Details() {
		switch d := detail.(type) {
		case *dominov1.Refusal:
			refusal = d // Reason, Message, Version, LegalMoves, Field, Owner
		case *errdetails.ErrorInfo:
			info = d // Reason, Domain "domino.v1"
		case *errdetails.BadRequest:
			bad = d // FieldViolations[i].Field and .Description
		}
	}
	return refusal, info, bad
}

func report(name string, err error) {
	out := map[string]interface{}{"case": name}
	if err == nil {
		out["error"] = "none"
	} else {
		out["code"] = status.Code(err).String()
		refusal, info, bad := refusalOf(err)
		if refusal != nil {
			out["reason"], out["field"], out["legal_moves"] = refusal.Reason, refusal.Field, len(refusal.LegalMoves)
		}
		if info != nil {
			out["info_reason"], out["info_domain"] = info.Reason, info.Domain
		}
		if bad != nil && len(bad.FieldViolations) > 0 {
			out["bad_field"] = bad.FieldViolations[0].Field
		}
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
}

func main() {
	engine := flag.String("engine", "127.0.0.1:50051", "HOST:PORT")
	match := flag.String("match", "", "a live match")
	token := flag.String("token", "", "the token of the seat to move")
	flag.Parse()

	// grpc-go pings at most every 10 s (it raises a shorter Time to 10 s); the engine
	// allows one ping a second, so these settings never earn a "too many pings".
	conn, err := grpc.Dial(*engine, grpc.WithInsecure(), grpc.WithKeepaliveParams(
		keepalive.ClientParameters{Time: 10 * time.Second, Timeout: 3 * time.Second,
			PermitWithoutStream: true}))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	engineClient := dominov1.NewEngineClient(conn)

	_, err = engineClient.SubmitMove(ctx, &dominov1.SubmitMoveRequest{MatchId: *match,
		SeatToken: "not-a-token", Move: &dominov1.SubmitMoveRequest_MoveId{MoveId: "0"}})
	report("bad-token", err)

	_, err = engineClient.CreateMatch(ctx, &dominov1.CreateMatchRequest{
		Variant: dominov1.Variant_VARIANT_HHL, BotClockMs: 5})
	report("bad-clock", err)

	// A Hello the engine cannot accept ends the stream: Recv returns the status.
	stream, err := dominov1.NewPlayClient(conn).Connect(ctx)
	if err == nil {
		err = stream.Send(&dominov1.BotMessage{Body: &dominov1.BotMessage_Hello{
			Hello: &dominov1.Hello{Auth: &dominov1.Hello_Seat{Seat: &dominov1.SeatAuth{
				MatchId: "nosuch", SeatToken: "t"}}, Client: "go test client"}}})
	}
	if err == nil {
		_, err = stream.Recv()
	}
	report("hello-unknown-match", err)

	// On the stream a refused move comes inline, in a MoveAnswer.
	stream, err = dominov1.NewPlayClient(conn).Connect(ctx)
	if err != nil {
		report("stream", err)
		return
	}
	stream.Send(&dominov1.BotMessage{Body: &dominov1.BotMessage_Hello{Hello: &dominov1.Hello{
		Auth: &dominov1.Hello_Seat{Seat: &dominov1.SeatAuth{MatchId: *match, SeatToken: *token}},
		SkipEvents: true}}})
	for {
		msg, err := stream.Recv()
		if err != nil {
			report("stream", err)
			return
		}
		switch body := msg.Body.(type) {
		case *dominov1.EngineMessage_Turn:
			stream.Send(&dominov1.BotMessage{Body: &dominov1.BotMessage_Move{Move: &dominov1.MoveChoice{
				Version: body.Turn.State.Version,
				Move:    &dominov1.MoveChoice_MoveText{MoveText: "banana"}}}})
		case *dominov1.EngineMessage_Answer:
			r := body.Answer.Refusal
			line, _ := json.Marshal(map[string]interface{}{"case": "move-answer",
				"accepted": body.Answer.Accepted, "reason": r.GetReason(), "field": r.GetField(),
				"legal_moves": len(r.GetLegalMoves())})
			fmt.Println(string(line))
			return
		}
	}
}
