// Words: the page's two languages, the API's codes in words, and the settings the reader
// chose (language, kanji or letters).

const I18N = {
  en: {
    games: 'Games', calculator: 'Impasse calculator', judge: 'Judge a record',
    gamesTitle: 'Games on this server', noGames: 'No games yet.',
    ratings: 'Ratings', ratingsTitle: 'Rating list', ratingsAt: 'Computed {at} from the games stored here.',
    ratingsNone: 'No rating list yet: it is computed from the stored games a moment after the server starts.',
    ratingsNote: 'As Floodgate rates its players (mk_rate): games of players who log in with a password, weighted by age; 15 games with a win and a loss to be rated; each group of players who met has its mean at 1000.',
    rank: 'Rank', player: 'Player', rate: 'Rating', winsCol: 'Wins', lossesCol: 'Losses', lastGame: 'Last game', unrated: 'not rated',
    nextRound: 'next round {at}', waitingFor: '{n} waiting',
    tests: 'Engine tests', testsTitle: 'Engine tests on this server', noTests: 'No engine tests here (gyoku test create makes one).',
    testCol: 'Test', enginesCol: 'Engines', sprtCol: 'SPRT', eloCol: 'Elo',
    sprt_H0: 'H0 accepted: not stronger by elo1', sprt_H1: 'H1 accepted: stronger by elo1 or more',
    test_running: 'running', test_stopped: 'stopped', test_finished: 'finished',
    workerCol: 'Worker', disagreementsCol: 'Judged otherwise', batchesCol: 'Batches held', lapsedCol: 'Batches lapsed', seenCol: 'Last heard',
    throttled: 'throttled for {s} s', secondsAgo: '{s} s ago', testWins: '{name} wins', workerSaid: 'the worker said: {said}',
    gamesOf: '{n} of {of} games', perMinute: '{n} games a minute', pairsCol: 'pairs', disagreementsN: '{n} judged otherwise than the worker said',
    digestIs: 'rules digest {d}…', batchesOut: '{n} batches out', workersTitle: 'Workers', latestGames: 'Latest games',
    events: 'Events', eventsTitle: 'Events on this server', noEvents: 'No events here (gyoku serve --event-file starts one).',
    eventCol: 'Event', formatCol: 'Format', roundCol: 'Round', swiss: 'Swiss', roundRobin: 'Round-robin',
    event_waiting: 'waiting for round 1', event_playing: 'under way', event_paused: 'paused', event_finished: 'finished',
    roundOf: 'round {n} of {of}', endedBecause: 'ended: {why}', standings: 'Standings', crosstable: 'Crosstable',
    pairings: 'Pairings', roundN: 'Round {n}', board: 'Board', bye: '{name} has a bye.', notStarted: 'not started',
    adjusted: 'adjusted: {why}', reasonForfeit: 'forfeit: not there when the wait ended', pointsCol: 'Points', gamesCol: 'Games', wdl: 'W/D/L',
    buchholz: 'Buchholz', sb: 'SB',
    ratedAt: 'rating {rate}', notListed: 'not in the rating list', playerScore: '{games} games: {win} won, {loss} lost, {draw} drawn',
    ratingChart: 'Rating over time', byReason: 'Results by reason', reasonCol: 'Reason', recentGames: 'Latest games',
    outcome_win: 'won', outcome_loss: 'lost', outcome_draw: 'drawn', outcome_no_contest: 'no contest',
    game: 'Game', black: 'Black', white: 'White', status: 'Status', result: 'Result',
    moves: 'Moves', playing: 'playing', finished: 'finished', suspended: 'suspended',
    toMove: '{side} to move', inCheck: 'check', side: 'Side', entered: 'Entered',
    zone: 'In the zone', total: 'Points', declaration: 'Declaration points', yes: 'yes', no: 'no',
    rules: 'Rules', ifDeclares: 'If {side} declares now', agreement: 'Agreement count',
    endedBy: 'Already over by', sfen: 'Position (SFEN, startpos or a handicap name)',
    movesInput: 'Moves to play first (USI, separated by spaces)', calculate: 'Calculate',
    drop: 'Drop a KIF, KI2, CSA, JKF or USI file here (any encoding), or choose one:',
    pasteRecord: '… or paste the record as text:', judgeText: 'Judge the text',
    handicap: 'Handicap (White gives it and moves first)', evenGame: 'none: an even game',
    startPlaying: 'Play a game →',
    people: 'Participants now', presence: 'Now', presence_playing: 'playing', presence_waiting: 'waiting for the board',
    presence_away: 'away (connection lost, may come back)', presence_connected: 'connected, not waiting',
    presence_absent: 'absent', forfeitAt: 'A player not there by {at} forfeits.',
    filterGames: 'Find a player or a game', anyStatus: 'any status', started: 'Started', timeControl: 'Time',
    gamesShown: '{from}–{to} of {total}', noneFiltered: 'No game matches.',
    download: 'Download as', notOver: 'Not over yet', wins: '{side} wins', draw: 'Draw',
    noContest: 'No contest', atPly: 'at ply {ply}', foulAt: 'Foul at ply {ply}: {move} ({kind})',
    recorded: 'The record says: {end}.', damagedAt: 'Damaged at line {line}: {what}. Judged up to there.', agrees: 'Gyoku agrees.', differs: 'Gyoku differs.',
    used: '{side}: {used} used of {total}', live: 'live', ply: 'Ply', start: 'Start',
    canMate: 'Can still mate (by checks; {n} nodes each)', mateFound: 'mate found in {n}',
    mateUnknown: 'no mate within the budget', mateNone: 'no mate (proved)',
    impasse: 'Impasse', chart: 'Impasse points over the game', records: '{n} games in the file; the first is shown.',
    play: 'Play', playTitle: 'Play a game', opponent: 'Opponent', person: 'another person (send a link)',
    fouls: 'Illegal moves', foulsPreset: 'as the rules say', foulsRefuse: 'refused (friendly)', foulsLose: 'lose the game (tournament)',
    foulsClaim: 'lose if the opponent claims them (amateur events)',
    periods: 'Byoyomi periods', thinkingUnits: 'Thinking units (考慮時間)', unitSeconds: 'Seconds per unit',
    unitsLeft: '{n} × {s} s units', periodsText: '× {n} periods', unitsText: ', {n} × {s} s thinking units',
    foulsClaimNote: 'Amateur rules: a foul you can make on a real board (two pawns on a file, a pawn-drop mate, leaving your king in check, a piece with no move) is played; it loses only if your opponent claims it before their next move.',
    foulsClaimWord: 'lose only if claimed', claimFoul: 'Claim the foul',
    opponentLeft: 'Your opponent has left — {n} s to come back.', opponentGone: 'Your opponent has not come back.',
    claimAbsence: 'Claim the win',
    foulMade: 'Your opponent has just made a foul ({kind}: {move}). Claim it before you move, or it becomes part of the game.',
    totalTime: 'Main time (seconds)', byoyomi: 'Byoyomi (seconds)', increment: 'Increment (seconds, instead of byoyomi)',
    color: 'Your side', random: 'by lot', startSfen: 'Start position (SFEN, empty for the usual start)', maxMoves: 'Move limit (empty: the rules\' own, 0: none)',
    yourName: 'Your name', startGame: 'Start the game', invite: 'Send this link to your opponent:', join: 'Join the game',
    invited: 'You are invited to a game.', waiting: 'Waiting for the opponent…', resign: 'Resign', declare: 'Declare (入玉宣言)',
    promote: 'Promote?', promoteYes: 'Promote', promoteNo: 'Do not promote', refused: 'Refused: {kind} — {move}. Play another move.',
    lostBy: 'Illegal: {kind} — {move}. Under tournament rules the game is lost.', yourTurn: 'Your move', theirTurn: 'Opponent to move',
    you: 'You play {side}', youWin: 'You win', youLose: 'You lose', youDraw: 'Draw', replay: 'No contest: replayed with colours swapped.',
    byo: 'byoyomi', proposeImpasse: 'Propose impasse count', acceptImpasse: 'Accept impasse count',
    impasseProposed: 'Impasse count proposed', proposed: 'Your opponent proposes to count the impasse now.',
    proposeSennichite: 'Propose sennichite', acceptSennichite: 'Accept sennichite', sennichiteProposed: 'Sennichite proposed',
    proposedSennichite: 'Your opponent proposes to agree to sennichite (the position has repeated).',
    nextGame: 'The replay has started: go to it →',
    editBoard: 'Set up on the board', emptyBoard: 'Empty board', startBoard: 'Start position',
    foulsLoseNote: 'Tournament rules: a foul you can make on a real board (two pawns on a file, a pawn-drop mate, leaving your king in check, a piece with no move) loses the game at once.',
    foulsRefuseNote: 'Friendly rules: a foul (two pawns on a file, a pawn-drop mate, leaving your king in check, a piece with no move) is refused and named; play another move.',
    foulsPresetNote: 'Under the rules chosen, fouls {what}.', foulsLoseWord: 'lose the game', foulsRefuseWord: 'are refused',
    checkYes: 'in check', checkNo: '—', vs: 'vs',
    noKing: 'No king for {sides}: the position is counted leniently (a game cannot start from it).',
    invitedBy: '{from} invites you to a game under {rules} rules, {time}; you play {side}. Fouls {fouls}.',
    evaluation: "The engine's evaluation (Black's side)",
    notYourSeat: 'This seat is kept by the browser that started or joined the game; here it can only be watched (see Games).',
    flip: 'Flip board', rematch: 'Rematch (colours swapped)', newGame: 'New game',
    confirmResign: 'Resign this game?', confirmYes: 'Yes', confirmNo: 'Cancel',
    declareWins: 'Declaring now wins: {points} points, {zone} pieces in the zone. Declare?',
    declareNoContest: 'Declaring now gives a no contest ({points} points): the game is replayed with colours swapped. Declare?',
    declareDraw: 'Declaring now gives a draw ({points} points). Declare?',
    declareLoses: 'Declaring now loses: {why}. Declare anyway?',
    declareUnknown: 'Declare (入玉宣言) now?',
    logIn: 'Log in', logOut: 'Log out', register: 'Register', account: 'Your account', accountName: 'Name (letters, digits, _)',
    password: 'Password (8 characters or more)', passwordNow: 'Password now', newPassword: 'New password',
    changePassword: 'Change the password', passwordChanged: 'The password is changed; your other sessions are logged out.',
    loggedInAs: 'Logged in as {name}', myPage: 'Your games and rating',
    accountNote: 'An account keeps your name and rates your games against other accounts (Glicko-2). The same name and password log in on the CSA port. You can also play as a guest, without one.',
    ratedNote: 'Your games against other logged-in players are rated with Glicko-2; games against guests and engines are not.',
    noAccounts: 'This server keeps no accounts.', playingAs: 'You play as {name}: games against other accounts are rated.',
    peopleTitle: 'People (Glicko-2)', peopleNote: 'Games between accounts on the web page, rated one game at a time with Glicko-2 (τ 0.5; a new player starts at 1500 ± 350).',
    noPeople: 'No rated games between accounts yet.', deviation: '±', gamesPlayed: 'Games', draws: 'Draws',
    glicko: 'Glicko-2 {rating} ± {rd}', glickoChart: 'Glicko-2 rating, game by game', ratedGames: 'Rated games',
    when: 'Date', opponentCol: 'Opponent', ratingAfter: 'Rating after', yourResult: 'Result',
    afterGames: 'after {n} games', newPlayer: 'new player',
    analysis: 'Analysis', analyse: 'Analyse with the engine', analysedBy: 'Analysed by {engine}, {ms} ms a position.',
    analysing: 'Analysing: {n} of {of} positions…', evalAt: 'Evaluation after ply {ply} (Black +)', evalGraph: 'Evaluation over the game',
    bestAt: 'Best at ply {ply}: {best} (played {played})', mistakes: 'Mistakes', mateFor: 'mate for {side}',
    pairedAt: 'paired {at}', lastPaired: 'last round paired {at}', playingNow: 'playing: {names}',
    awayNow: 'away (may come back): {names}',
    level: 'Level', levelN: 'Level {n}', levelMs: '{ms} ms a move', levelDepth: 'depth {n}', levelNodes: '{n} nodes',
  },
  ja: {
    games: '対局', calculator: '入玉計算', judge: '棋譜判定',
    gamesTitle: 'このサーバーの対局', noGames: '対局はまだありません。',
    ratings: 'レーティング', ratingsTitle: 'レーティング表', ratingsAt: '{at} にこのサーバーの対局から計算しました。',
    ratingsNone: 'レーティング表はまだありません。サーバーの起動後しばらくして対局から計算されます。',
    ratingsNote: 'Floodgate と同じ方法（mk_rate）：パスワード付きでログインした対局者の対局を古さで重み付けし、15局以上・勝ちと負けがある対局者をレーティングします。対戦でつながった各グループの平均は1000です。',
    rank: '順位', player: '対局者', rate: 'レート', winsCol: '勝', lossesCol: '負', lastGame: '最終対局', unrated: '未評価',
    nextRound: '次の対局 {at}', waitingFor: '待機 {n}人',
    tests: 'エンジンテスト', testsTitle: 'このサーバーのエンジンテスト', noTests: 'エンジンテストはありません（gyoku test create で作れます）。',
    testCol: 'テスト', enginesCol: 'エンジン', sprtCol: 'SPRT', eloCol: 'Elo',
    sprt_H0: 'H0 採択：elo1 ほど強くない', sprt_H1: 'H1 採択：elo1 以上強い',
    test_running: '実行中', test_stopped: '停止', test_finished: '終了',
    workerCol: 'ワーカー', disagreementsCol: '判定の相違', batchesCol: '保持中のバッチ', lapsedCol: '失効したバッチ', seenCol: '最終通信',
    throttled: '{s}秒間制限中', secondsAgo: '{s}秒前', testWins: '{name}の勝ち', workerSaid: 'ワーカーの申告：{said}',
    gamesOf: '{of}局中{n}局', perMinute: '毎分{n}局', pairsCol: 'ペア', disagreementsN: 'ワーカーの申告と異なる判定 {n}局',
    digestIs: 'ルールのダイジェスト {d}…', batchesOut: '配布中のバッチ {n}', workersTitle: 'ワーカー', latestGames: '最近の対局',
    events: '大会', eventsTitle: 'このサーバーの大会', noEvents: '大会はありません（gyoku serve --event-file で始まります）。',
    eventCol: '大会', formatCol: '方式', roundCol: '回戦', swiss: 'スイス式', roundRobin: '総当たり',
    event_waiting: '1回戦を待っています', event_playing: '進行中', event_paused: '中断中', event_finished: '終了',
    roundOf: '{of}回戦中{n}回戦', endedBecause: '終了：{why}', standings: '順位表', crosstable: '星取表',
    pairings: '組み合わせ', roundN: '{n}回戦', board: '盤', bye: '{name} は不戦（休み）です。', notStarted: '未開始',
    adjusted: '訂正：{why}', reasonForfeit: '不戦（待ち時間内に来なかった）', pointsCol: '勝点', gamesCol: '局数', wdl: '勝/分/負',
    buchholz: 'ブッフホルツ', sb: 'SB',
    ratedAt: 'レーティング {rate}', notListed: 'レーティング表にありません', playerScore: '{games}局：{win}勝 {loss}敗 {draw}分',
    ratingChart: 'レーティングの推移', byReason: '終局理由別の成績', reasonCol: '理由', recentGames: '最近の対局',
    outcome_win: '勝ち', outcome_loss: '負け', outcome_draw: '引き分け', outcome_no_contest: '無勝負',
    game: '対局', black: '先手', white: '後手', status: '状態', result: '結果',
    moves: '手数', playing: '対局中', finished: '終局', suspended: '中断',
    toMove: '{side}番', inCheck: '王手', side: '', entered: '入玉',
    zone: '敵陣の駒', total: '点数', declaration: '宣言点', yes: '済', no: '未',
    rules: 'ルール', ifDeclares: '{side}が今宣言すると', agreement: '合意時の点数判定',
    endedBy: '既に終局', sfen: '局面（SFEN、startpos、駒落ち名）',
    movesInput: '先に指す手（USI、空白区切り）', calculate: '計算',
    drop: 'KIF・KI2・CSA・JKF・USI の棋譜をここにドロップ（文字コードは自動判別）、または選択：',
    pasteRecord: '……または棋譜をテキストで貼り付け：', judgeText: 'テキストを判定',
    handicap: '駒落ち（上手は後手、先に指します）', evenGame: 'なし（平手）',
    startPlaying: '対局する →',
    people: '参加者の状況', presence: '状況', presence_playing: '対局中', presence_waiting: '対局待ち',
    presence_away: '接続切れ（再接続の猶予中）', presence_connected: '接続中（待機なし）',
    presence_absent: '不在', forfeitAt: '{at} までに来ない参加者は不戦敗です。',
    filterGames: '対局者名・対局名で検索', anyStatus: 'すべて', started: '開始', timeControl: '持ち時間',
    gamesShown: '{total}局中 {from}～{to}', noneFiltered: '該当する対局はありません。',
    download: 'ダウンロード', notOver: '終局していません', wins: '{side}の勝ち', draw: '引き分け',
    noContest: '無勝負', atPly: '{ply}手目', foulAt: '{ply}手目に反則：{move}（{kind}）',
    recorded: '棋譜の記載：{end}。', damagedAt: '{line}行目で棋譜が壊れています：{what}。そこまでを判定しました。', agrees: 'Gyoku の判定と一致。', differs: 'Gyoku の判定と相違。',
    used: '{side}：消費 {used}／持ち時間 {total}', live: '中継中', ply: '手数', start: '開始局面',
    canMate: '詰みの見込み（王手の連続で、各 {n} 局面まで探索）', mateFound: '{n}手の詰みあり',
    mateUnknown: '探索の範囲では詰みが見つからない', mateNone: '詰みなし（証明済み）',
    impasse: '入玉', chart: '対局中の点数の推移', records: 'ファイルに {n} 局あります。最初の局を表示します。',
    play: '対局する', playTitle: '対局を始める', opponent: '相手', person: '人（リンクを送る）',
    fouls: '反則', foulsPreset: 'ルールどおり', foulsRefuse: '指し直し（フレンドリー）', foulsLose: '反則負け（公式戦）',
    foulsClaim: '相手が指摘すれば反則負け（アマ大会）',
    periods: '秒読みの回数', thinkingUnits: '考慮時間の回数', unitSeconds: '考慮時間1回の秒数',
    unitsLeft: '考慮時間 {n} 回（{s}秒）', periodsText: '×{n}回', unitsText: '、考慮時間{s}秒×{n}回',
    foulsClaimNote: 'アマ大会ルール：実際の盤で指せる反則（二歩、打ち歩詰め、王手放置、行き所のない駒）は指されます。相手が次の手を指す前に指摘したときだけ反則負けです。',
    foulsClaimWord: '指摘されたときだけ反則負けです', claimFoul: '反則を指摘する',
    opponentLeft: '相手の接続が切れました。戻るまであと {n} 秒です。', opponentGone: '相手は戻りませんでした。',
    claimAbsence: '勝ちを申し立てる',
    foulMade: '相手が反則をしました（{kind}：{move}）。次の手を指す前に指摘しないと、そのまま対局が続きます。',
    totalTime: '持ち時間（秒）', byoyomi: '秒読み（秒）', increment: 'フィッシャー加算（秒、秒読みの代わり）',
    color: '手番', random: '振り駒', startSfen: '開始局面（SFEN、空欄は平手）', maxMoves: '最大手数（空欄はルールどおり、0は無制限）',
    yourName: '名前', startGame: '対局開始', invite: 'このリンクを相手に送ってください：', join: '対局に参加',
    invited: '対局に招待されています。', waiting: '相手を待っています…', resign: '投了', declare: '入玉宣言',
    promote: '成りますか？', promoteYes: '成る', promoteNo: '成らない', refused: '指せません：{kind}（{move}）。別の手を指してください。',
    lostBy: '反則：{kind}（{move}）。公式戦ルールでは反則負けです。', yourTurn: 'あなたの手番', theirTurn: '相手の手番',
    you: 'あなたは{side}', youWin: 'あなたの勝ち', youLose: 'あなたの負け', youDraw: '引き分け', replay: '無勝負：先後を入れ替えて指し直します。',
    byo: '秒読み', proposeImpasse: '持将棋を提案', acceptImpasse: '持将棋に同意',
    impasseProposed: '持将棋を提案中', proposed: '相手が持将棋（点数計算）を提案しています。',
    proposeSennichite: '千日手を提案', acceptSennichite: '千日手に同意', sennichiteProposed: '千日手を提案中',
    proposedSennichite: '相手が千日手の合意を提案しています（同一局面が繰り返されています）。',
    nextGame: '指し直し局が始まりました →',
    editBoard: '盤面を編集', emptyBoard: '駒を全部取り除く', startBoard: '平手の初期配置',
    foulsLoseNote: '公式戦ルール：実際の盤で指せる反則（二歩、打ち歩詰め、王手放置、行き所のない駒）は即座に反則負けです。',
    foulsRefuseNote: 'フレンドリールール：反則（二歩、打ち歩詰め、王手放置、行き所のない駒）は受け付けられず、理由が表示されます。別の手を指してください。',
    foulsPresetNote: '選んだルールでは、反則は{what}。', foulsLoseWord: '反則負けです', foulsRefuseWord: '指し直しです',
    checkYes: '王手', checkNo: '—', vs: '対',
    noKing: '{sides}の玉がありません：点数は寛容に数えます（この局面から対局はできません）。',
    invitedBy: '{from}さんからの対局の招待：{rules}ルール、{time}、あなたは{side}です。反則は{fouls}。',
    evaluation: 'エンジンの評価値（先手から）',
    notYourSeat: 'この席は対局を始めた（参加した）ブラウザーにだけ保存されています。ここでは観戦のみできます（対局一覧から）。',
    flip: '盤面反転', rematch: '先後を入れ替えて再戦', newGame: '新しい対局',
    confirmResign: '投了しますか？', confirmYes: 'はい', confirmNo: 'キャンセル',
    declareWins: '今宣言すると勝ちです（{points}点、敵陣に{zone}枚）。宣言しますか？',
    declareNoContest: '今宣言すると無勝負（{points}点）で、先後を入れ替えて指し直しです。宣言しますか？',
    declareDraw: '今宣言すると引き分けです（{points}点）。宣言しますか？',
    declareLoses: '今宣言すると負けです：{why}。それでも宣言しますか？',
    declareUnknown: '入玉宣言しますか？',
    logIn: 'ログイン', logOut: 'ログアウト', register: '登録', account: 'アカウント', accountName: '名前（英数字と _）',
    password: 'パスワード（8文字以上）', passwordNow: '現在のパスワード', newPassword: '新しいパスワード',
    changePassword: 'パスワードを変更', passwordChanged: 'パスワードを変更しました。他のセッションはログアウトしました。',
    loggedInAs: '{name} でログイン中', myPage: '自分の対局とレーティング',
    accountNote: 'アカウントがあると名前が保たれ、他のアカウントとの対局が Glicko-2 でレーティングされます。同じ名前とパスワードで CSA ポートにもログインできます。アカウントなしでもゲストとして対局できます。',
    ratedNote: 'ログインした相手との対局は Glicko-2 でレーティングされます。ゲストやエンジンとの対局は対象外です。',
    noAccounts: 'このサーバーにはアカウントがありません。', playingAs: '{name} として対局します。アカウント同士の対局はレーティングされます。',
    peopleTitle: '対局者（Glicko-2）', peopleNote: 'ウェブページのアカウント同士の対局を、1局ごとに Glicko-2（τ 0.5、初期値 1500 ± 350）で計算しています。',
    noPeople: 'アカウント同士のレーティング対局はまだありません。', deviation: '±', gamesPlayed: '局数', draws: '分',
    glicko: 'Glicko-2 {rating} ± {rd}', glickoChart: 'Glicko-2 レーティングの推移（1局ごと）', ratedGames: 'レーティング対局',
    when: '日時', opponentCol: '相手', ratingAfter: '対局後のレート', yourResult: '結果',
    afterGames: '{n}局後', newPlayer: '初期値',
    analysis: '解析', analyse: 'エンジンで解析', analysedBy: '{engine} で解析（1局面 {ms} ミリ秒）。',
    analysing: '解析中：{of}局面中 {n}局面…', evalAt: '{ply}手目の評価値（先手から）', evalGraph: '評価値の推移',
    bestAt: '{ply}手目の最善手：{best}（実戦 {played}）', mistakes: '悪手', mateFor: '{side}の詰み',
    pairedAt: '{at} 組み合わせ', lastPaired: '前回の組み合わせ {at}', playingNow: '対局中：{names}',
    awayNow: '接続切れ（猶予中）：{names}',
    level: 'レベル', levelN: 'レベル{n}', levelMs: '1手{ms}ミリ秒', levelDepth: '深さ{n}', levelNodes: '{n}ノード',
  },
};

// What a declaration or an agreed count would bring now (the calculator's verdicts).
export const VERDICTS = {
  win: ['wins', '勝ち'], lose: ['loses', '負け'], no_contest: ['no contest (replayed)', '無勝負（指し直し）'],
  draw: ['draw', '引き分け'], black: ['Black wins', '先手勝ち'], white: ['White wins', '後手勝ち'],
  not_available: ['not possible', 'なし'],
};

// The API's refusals and errors, in words (the API keeps its codes).
const ERRORS = {
  wrong_password: ['No account has that name and password.', '名前かパスワードが違います。'],
  name_taken: ['That name is taken.', 'その名前は使われています。'],
  invalid_name: ['A name is 1 to 24 letters, digits or _.', '名前は英数字と _ で1～24文字です。'],
  invalid_password: ['A password has at least 8 characters.', 'パスワードは8文字以上です。'],
  too_many: ['Too many tries from here; wait a little.', '試行が多すぎます。しばらく待ってください。'],
  analysis_busy: ['A game you asked for is being analysed; ask again when it is done.', '解析中の対局があります。終わってからもう一度どうぞ。'],
  no_analysis: ['This server has no analysis engine.', 'このサーバーには解析エンジンがありません。'],
  not_finished: ['A game is analysed once it has ended.', '解析は終局後にできます。'],
  invalid_level: ['That engine has no such level.', 'そのエンジンにはそのレベルがありません。'],
  not_your_turn: ['It is not your turn.', 'あなたの手番ではありません。'],
  not_playing: ['This seat is not playing a game now.', 'この席は対局中ではありません。'],
  no_answer: ['The server did not answer in time; try again.', 'サーバーが時間内に応答しませんでした。もう一度お試しください。'],
  refused: ['The server refused it.', 'サーバーが受け付けませんでした。'],
  invitation_taken: ['This invitation was used already.', 'この招待は使用済みです。'],
  no_such_seat: ['No such seat (a server restart forgets them).', 'その席はありません（サーバー再起動で消えます）。'],
  no_such_game: ['No such game.', 'その対局はありません。'],
  too_many_seats: ['Too many games are open; finish one first.', '未終局の対局が多すぎます。先に終局してください。'],
  engines_busy: ['The engines are busy; try again later.', 'エンジンが混み合っています。しばらくしてからお試しください。'],
  too_many_requests: ['Too many requests at once; wait a moment.', '同時リクエストが多すぎます。少しお待ちください。'],
  busy: ['The server is busy; try again.', 'サーバーが混み合っています。もう一度お試しください。'],
  storage_unavailable: ['The server cannot read its games now.', 'サーバーが棋譜を読めません。'],
  cross_origin: ['Refused: this request came from another site.', '他のサイトからの操作は受け付けません。'],
  invalid_record: ['This is not a record Gyoku can read.', '読める棋譜ではありません。'],
  too_large: ['The file is too large.', 'ファイルが大きすぎます。'],
  invalid_sfen: ['This position does not read.', '局面を読めません。'],
  invalid_move: ['This move does not read.', '指し手を読めません。'],
  illegal_move: ['This move is illegal.', '反則手です。'],
  invalid_time: ['This time control cannot be played.', 'この持ち時間では対局できません。'],
};

// Why a declaration fails now, in words.
export const DECL_FAILURES = {
  king_not_entered: ['your king has not entered the zone', '玉が敵陣に入っていません'],
  zone_count: ['fewer than 10 of your pieces are in the zone', '敵陣の駒が10枚未満です'],
  in_check: ['your king is in check', '王手がかかっています'],
  points: ['not enough points', '点数が足りません'],
  after_move_limit: ['the move limit has passed', '手数制限を過ぎています'],
  no_time: ['no time is left', '持ち時間がありません'],
  no_rule: ['these rules have no declaration', 'このルールには宣言がありません'],
};

// What a foul does under each mode, in a sentence (the seat's note, the play form's) and a
// word (an invitation's).
export const FOUL_NOTES = { lose: 'foulsLoseNote', refuse: 'foulsRefuseNote', claim: 'foulsClaimNote' };
export const FOUL_WORDS = { lose: 'foulsLoseWord', refuse: 'foulsRefuseWord', claim: 'foulsClaimWord' };

// The rule sets by their presets' names (`gyoku rules`), in words.
export const RULES = {
  jsa: ['JSA (professional)', '日本将棋連盟（プロ）'],
  'jsa-amateur': ['JSA amateur events', '日本将棋連盟（アマ大会）'],
  csa: ['CSA / Floodgate (27-point declaration)', 'CSA・floodgate（27点宣言）'],
  '81dojo': ['81Dojo', '81道場'],
  lishogi: ['lishogi', 'lishogi'],
  'shogi-wars': ['Shogi Wars', '将棋ウォーズ'],
  try: ['Try rule', 'トライルール'],
  saw: ['SAW (24-point count)', 'SAW（24点法）'],
  friendly: ['Friendly (fouls refused)', '親善（反則は指し直し）'],
  none: ['No impasse rule', '入玉規定なし'],
  csa24: ['CSA, 31-point declaration (YaneuraOu CSARule24)', 'CSA・31点宣言（やねうら王 CSARule24）'],
  csa24h: ['CSA, 31-point declaration, handicap credit (CSARule24H)', 'CSA・31点宣言・駒落ち補正（CSARule24H）'],
  csa27h: ['CSA, handicap credit (CSARule27H)', 'CSA・駒落ち補正（CSARule27H）'],
  wcsc: ['World Computer Shogi Championship', '世界コンピュータ将棋選手権'],
  denryu: ['Denryu-sen', '電竜戦'],
  floodgate: ['Floodgate', 'floodgate'],
};

export const REASONS = {
  checkmate: ['checkmate', '詰み'], resignation: ['resignation', '投了'],
  time_up: ['time up', '時間切れ'], illegal_move: ['illegal move', '反則'],
  sennichite: ['sennichite (fourfold repetition)', '千日手'],
  agreed_sennichite: ['sennichite by agreement', '千日手（合意）'],
  claimed_foul: ['a foul, claimed', '反則（指摘）'],
  perpetual_check: ['perpetual check', '連続王手の千日手'],
  declaration: ['declaration (entering king)', '入玉宣言'],
  failed_declaration: ['failed declaration', '宣言失敗'],
  impasse_agreement: ['impasse by agreement', '持将棋（合意）'],
  impasse_count: ['impasse count', '持将棋（点数）'], move_limit: ['move limit', '手数制限'],
  try: ['try', 'トライ'], forfeit: ['forfeit', '反則負け'], no_legal_move: ['no legal move', '指し手なし'],
  suspended: ['suspended', '中断'], automatic_impasse: ['impasse (counted automatically)', '持将棋（自動判定）'],
  garbage: ['a line that is no move', '不正な送信'], crash: ['the engine crashed', 'エンジン異常終了'],
  hang: ['the engine hung', 'エンジン無応答'], flood: ['the engine flooded', 'エンジン過剰出力'], illegal_action: ['an illegal action', '反則行為'],
  abnormal: ['a player left', '接続切れ'],
};

export const FOULS = {
  nifu: ['nifu (two pawns on a file)', '二歩'],
  uchifuzume: ['uchifuzume (pawn-drop mate)', '打ち歩詰め'],
  dead_piece: ['a piece with no move', '行き所のない駒'],
  not_in_hand: ['not in hand', '持ち駒にない駒'],
  king_in_check: ['leaves the king in check', '王手放置'],
  bad_movement: ['the piece cannot move so', '動けない動き'],
};

export const settings = {
  lang: localStorage.getItem('gyoku.lang') || ((navigator.language || '').startsWith('ja') ? 'ja' : 'en'),
  // Kanji or letters: as chosen, else as the browser's first language (kanji in Japanese).
  glyphs: localStorage.getItem('gyoku.glyphs')
    || ((localStorage.getItem('gyoku.lang') || navigator.language || '').startsWith('ja') ? 'kanji' : 'letters'),
};

export function t(key, args) {
  let s = (I18N[settings.lang] || I18N.en)[key] ?? I18N.en[key] ?? key;
  for (const [k, v] of Object.entries(args || {})) s = s.replace(`{${k}}`, v);
  return s;
}

export const word = (table, code) => (table[code] ? table[code][settings.lang === 'ja' ? 1 : 0] : code);

export const sideName = (c) => t(c === 'b' || c === 'black' ? 'black' : 'white');

// An error in words: the API's message in English, the table's words in Japanese.
export function errorText(e) {
  const i = (e && e.info) || {};
  if (settings.lang === 'ja' && ERRORS[i.code]) return ERRORS[i.code][1];
  if (i.message) return i.message;
  return e && e.message ? e.message : String(e);
}

// A time control in words: "10 min + 10 s byoyomi", "5 min + 3 s increment".
export function timeText(time) {
  if (!time) return '';
  const ja = settings.lang === 'ja';
  const main = time.total % 60 === 0 ? (ja ? `${time.total / 60}分` : `${time.total / 60} min`) : (ja ? `${time.total}秒` : `${time.total} s`);
  if (time.byoyomi) {
    const more = (time.periods > 1 ? ` ${t('periodsText', { n: time.periods })}` : '')
      + (time.thinking_units ? t('unitsText', { n: time.thinking_units.count, s: time.thinking_units.seconds }) : '');
    return (ja ? `${main} 秒読み${time.byoyomi}秒` : `${main} + ${time.byoyomi} s byoyomi`) + more;
  }
  if (time.increment) return ja ? `${main} 加算${time.increment}秒` : `${main} + ${time.increment} s increment`;
  return main;
}

// A game's title: the players and the time control.
export function gameTitle(v) {
  const vs = settings.lang === 'ja' ? '対' : 'vs';
  const time = timeText(v.time);
  return `${v.black} ${vs} ${v.white}${time ? ` · ${time}` : ''}`;
}

// A result code in words.
export const resultWord = (r) => (r === 'draw' ? t('draw') : r === 'no_contest' ? t('noContest') : t('wins', { side: sideName(r) }));

export function endingText(o) {
  if (!o || !o.result) return t('notOver');
  const who = o.result === 'draw' ? t('draw') : o.result === 'no_contest' ? t('noContest') : t('wins', { side: sideName(o.result) });
  const parts = [`${who} — ${word(REASONS, o.reason)} ${t('atPly', { ply: o.ply })}`];
  const d = o.detail || {};
  if (d.foul) parts.push(`${word(FOULS, d.foul)}: ${d.move}`);
  if (d.occurrences) parts.push(`×${d.occurrences}: ${d.repeated_sfen}`);
  if (d.count) parts.push(`${t('total')} ${d.count.total_points}, ${t('declaration')} ${d.count.declaration_points}, ${t('zone')} ${d.count.zone_count}`);
  if (d.points) parts.push(`${t('black')} ${d.points.black} / ${t('white')} ${d.points.white}`);
  if (d.limit) parts.push(`${d.limit}`);
  if (d.failed) parts.push(word(DECL_FAILURES, d.failed));
  if (d.cause) parts.push(word(REASONS, d.cause));
  return parts.join(' · ');
}
