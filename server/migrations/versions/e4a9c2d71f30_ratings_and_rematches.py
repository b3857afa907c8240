"""ratings and rematches: rated games, ratings per game type, team records, rematch links

Revision ID: e4a9c2d71f30
Revises: d3v1c3k3y5a1
Create Date: 2026-12-01 11:50:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e4a9c2d71f30'
down_revision = 'd3v1c3k3y5a1'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('games') as batch:
        batch.add_column(sa.Column('rated', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('rated_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('rematch_of', sa.String(length=16), nullable=True))
        batch.add_column(sa.Column('rematch_id', sa.String(length=16), nullable=True))
        batch.create_index('ix_games_rematch_of', ['rematch_of'])
    with op.batch_alter_table('seats') as batch:
        batch.add_column(sa.Column('invited_id', sa.Integer(), nullable=True))
        batch.create_foreign_key('fk_seats_invited_id_players', 'players', ['invited_id'], ['id'])
    op.create_table('ratings',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('game_type', sa.String(length=32), nullable=False),
    sa.Column('mu', sa.Float(), nullable=False),
    sa.Column('sigma', sa.Float(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('wins', sa.Integer(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('player_id', 'game_type')
    )
    op.create_index('ix_ratings_player_id', 'ratings', ['player_id'])
    op.create_index('ix_ratings_game_type', 'ratings', ['game_type'])
    op.create_table('team_records',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('game_type', sa.String(length=32), nullable=False),
    sa.Column('team_size', sa.Integer(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('wins', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('player_id', 'game_type', 'team_size')
    )
    op.create_index('ix_team_records_player_id', 'team_records', ['player_id'])
    op.create_index('ix_team_records_game_type', 'team_records', ['game_type'])


def downgrade():
    op.drop_table('team_records')
    op.drop_table('ratings')
    with op.batch_alter_table('seats') as batch:
        batch.drop_constraint('fk_seats_invited_id_players', type_='foreignkey')
        batch.drop_column('invited_id')
    with op.batch_alter_table('games') as batch:
        batch.drop_index('ix_games_rematch_of')
        batch.drop_column('rematch_id')
        batch.drop_column('rematch_of')
        batch.drop_column('rated_at')
        batch.drop_column('rated')
