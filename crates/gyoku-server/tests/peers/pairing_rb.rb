# Runs shogi-server's own LeastDiff pairing (shogi_server/pairing.rb, GPL, from
# ../shared/peers) on a field read as JSON from standard input, and prints the pairing it
# chose, one "black white" pair of ids a line. Written for Gyoku's tests (MIT): stand-ins
# for the parts of shogi-server LeastDiff calls (players, the league, the game history).
#
#   ruby pairing_rb.rb SHOGI_SERVER_DIR < field.json
#   field.json: {"players": [{"id": "a+1", "rate": 1500}, ...], "last": {"a+1": "b+2", ...}}
require 'json'

dir = ARGV.fetch(0)
module Kernel
  def log_message(*) end
  def log_warning(*) end
end
require File.join(dir, 'shogi_server/pairing')

FakePlayer = Struct.new(:player_id, :name, :rate, :estimated_rate, :game_name) do
  def is_human?
    false
  end
end

class FakeHistory
  def initialize(last)
    @last = last
  end

  def last_opponent(id)
    @last[id]
  end

  def last_valid_game(_id)
    nil
  end
end

module ShogiServer
  module League
    class Floodgate
      class History
        class << self
          attr_accessor :current
          def factory(_path)
            current
          end
        end
      end

      def self.history_file_path(_name)
        'unused'
      end
    end
  end
end

field = JSON.parse($stdin.read)
ShogiServer::League::Floodgate::History.current = FakeHistory.new(field['last'])
players = field['players'].map do |p|
  FakePlayer.new(p['id'], p['id'].split('+').first, p['rate'], 0, 'floodgate-300-10F')
end
srand(field.fetch('seed', 1))
ShogiServer::LeastDiff.new.match(players)
players.each_slice(2) { |a, b| puts "#{a.player_id} #{b.player_id}" if b }
